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
 *       is deterministic). Its series is patched instead, counting the earlier incarnation as one
 *       observation: the recorder cannot know its count without {@code get}, which it is not
 *       granted, so the count is a lower bound.
 *   <li>404 on patch: the Event was deleted or expired ({@code --event-ttl}). It is created again,
 *       with the series so far.
 * </ul>
 *
 * <p>Threading: the worker thread only.
 */
final class EventApi {

  /** What a write did: its result, the series count now in the API (0 if none), and adoption. */
  record Outcome(EventResult result, int countWritten, boolean adopted) {
    static final Outcome FAILED = new Outcome(EventResult.FAILED, 0, false);
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
      return new Outcome(EventResult.CREATED, count, false);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        int adoptedCount = count + 1;
        Outcome patched = patchOnly(body, adoptedCount, lastObserved);
        return patched.result() == EventResult.UPDATED
            ? new Outcome(EventResult.UPDATED, adoptedCount, true)
            : patched;
      }
      return failed(body, e);
    } catch (RuntimeException e) {
      return failed(body, e);
    }
  }

  /** Patches the series of {@code body}'s Event to {@code count}; creates it again if gone. */
  Outcome patchSeries(Event body, int count, Instant lastObserved) {
    try {
      patch(body, count, lastObserved);
      return new Outcome(EventResult.UPDATED, count, false);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return create(body, count, lastObserved);
      }
      return failed(body, e);
    } catch (RuntimeException e) {
      return failed(body, e);
    }
  }

  private Outcome patchOnly(Event body, int count, Instant lastObserved) {
    try {
      patch(body, count, lastObserved);
      return new Outcome(EventResult.UPDATED, count, false);
    } catch (RuntimeException e) {
      return failed(body, e);
    }
  }

  private void patch(Event body, int count, Instant lastObserved) {
    // A JSON merge patch of the series only: the API lets nothing else of a v1 Event change.
    String series =
        "{\"series\":{\"count\":"
            + count
            + ",\"lastObservedTime\":\""
            + EventFields.microTime(lastObserved)
            + "\"}}";
    client
        .events()
        .v1()
        .events()
        .inNamespace(body.getMetadata().getNamespace())
        .withName(body.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), series);
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
