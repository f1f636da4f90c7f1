package dev.routesync.kube.events;

import dev.routesync.kube.events.FailureLog.Failure;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;

/**
 * The blocking writes: create an Event, patch its series. Recovers what a restart or the API
 * server's garbage collection causes, and turns everything else into {@link EventResult#FAILED}
 * (logged by {@link FailureLog}); never throws.
 *
 * <ul>
 *   <li>409 on create: the Event exists already (an agent restarted within its lifetime; the name
 *       is deterministic). An empty merge patch reads it back (the agent is granted {@code patch},
 *       not {@code get}); its series is then patched to its own count plus this recorder's.
 *   <li>404 on patch: the Event was deleted or expired ({@code --event-ttl}). It is created again,
 *       with the series so far.
 * </ul>
 *
 * <p>Threading: the worker thread only.
 */
final class EventApi {

  /**
   * What a write did: its result, the series count now in the API (0 if none), and the observations
   * an Event found after a restart had already counted ({@code adopted}, else 0).
   */
  record Outcome(EventResult result, int countWritten, int adopted) {
    static final Outcome FAILED = new Outcome(EventResult.FAILED, 0, 0);
  }

  private final KubernetesClient client;
  private final FailureLog failures;

  EventApi(KubernetesClient client, FailureLog failures) {
    this.client = client;
    this.failures = failures;
  }

  /** Creates {@code body} with a series when {@code count} is 2 or more. */
  Outcome create(Event body, int count, Instant lastObserved) {
    try {
      client
          .events()
          .v1()
          .events()
          .inNamespace(body.getMetadata().getNamespace())
          .resource(withSeries(body, count, lastObserved))
          .create();
      return new Outcome(EventResult.CREATED, count, 0);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return adopt(body, count, lastObserved);
      }
      return failed(body, e);
    } catch (RuntimeException e) {
      return failed(body, e);
    }
  }

  /** Patches the series of {@code body}'s Event to {@code count}; creates it again if gone. */
  Outcome patchSeries(Event body, int count, Instant lastObserved) {
    try {
      patch(body, seriesPatch(count, lastObserved));
      return new Outcome(EventResult.UPDATED, count, 0);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return create(body, count, lastObserved);
      }
      return failed(body, e);
    } catch (RuntimeException e) {
      return failed(body, e);
    }
  }

  /** The Event exists already: add its count (1 for a singleton) to this recorder's. */
  private Outcome adopt(Event body, int count, Instant lastObserved) {
    try {
      Event existing = patch(body, "{}");
      int prior =
          existing == null
                  || existing.getSeries() == null
                  || existing.getSeries().getCount() == null
              ? 1
              : existing.getSeries().getCount();
      int total = prior + count;
      patch(body, seriesPatch(total, lastObserved));
      return new Outcome(EventResult.UPDATED, total, prior);
    } catch (RuntimeException e) {
      return failed(body, e);
    }
  }

  /** A JSON merge patch of the series only: the API lets nothing else of a v1 Event change. */
  private static String seriesPatch(int count, Instant lastObserved) {
    return "{\"series\":{\"count\":"
        + count
        + ",\"lastObservedTime\":\""
        + EventFields.microTime(lastObserved)
        + "\"}}";
  }

  /**
   * One PATCH request and nothing else. On {@code resource(body)} rather than {@code withName(..)}:
   * with a name alone, fabric8 GETs the object before it patches, and the ClusterRole grants no
   * {@code get} on Events (a real API server answers 403; the CRUD mock never checks).
   */
  private Event patch(Event body, String mergePatch) {
    return client
        .events()
        .v1()
        .events()
        .inNamespace(body.getMetadata().getNamespace())
        .resource(body)
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  private static Event withSeries(Event body, int count, Instant lastObserved) {
    if (count < 2) {
      return body;
    }
    // The API requires a series count of at least 2: a singleton Event has none.
    return new EventBuilder(body)
        .withNewSeries()
        .withCount(count)
        .withLastObservedTime(new MicroTime(EventFields.microTime(lastObserved)))
        .endSeries()
        .build();
  }

  private Outcome failed(Event body, RuntimeException e) {
    if (Thread.currentThread().isInterrupted()) {
      // The recorder is closing and interrupted its worker: not the API server's failure.
      return Outcome.FAILED;
    }
    String event = body.getMetadata().getNamespace() + "/" + body.getMetadata().getName();
    Throwable cause = e.getCause();
    String detail = e.getMessage() + (cause == null ? "" : ", caused by " + cause);
    failures.failed(classify(e), event, detail);
    return Outcome.FAILED;
  }

  private static Failure classify(RuntimeException e) {
    if (!(e instanceof KubernetesClientException k)) {
      return Failure.OTHER;
    }
    int code = k.getCode();
    return switch (code) {
      case 401, 403 -> Failure.FORBIDDEN;
      case 404 -> Failure.NOT_FOUND;
      case 409 -> Failure.CONFLICT;
      case 400, 422 -> Failure.INVALID;
      default -> code >= 100 ? Failure.SERVER_ERROR : Failure.UNREACHABLE;
    };
  }
}
