package dev.routesync.kube.events;

import dev.routesync.kube.events.EventApi.Outcome;
import dev.routesync.sync.Scheduler;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes Warning Events ({@code events.k8s.io/v1}), one per deduplication key, as client-go's
 * events/v1 broadcaster does, in the small form the drift detector needs.
 *
 * <ul>
 *   <li><b>Dedup and series.</b> The first observation of a key creates its Event (named {@code
 *       <pod>.<hash of key>}). Repeats are counted locally; the Event's {@code series} ({@code
 *       count} = every observation so far, the first included, as in client-go; {@code
 *       lastObservedTime}) is patched at most once per {@link EventRecorderSettings#seriesInterval}
 *       per key: at once for a repeat that comes after the interval, otherwise by the next sweep
 *       after it.
 *   <li><b>Rate limit.</b> Every write takes a token from one bucket shared by all keys. A new key
 *       without a token is dropped and counted ({@link EventResult#DROPPED_RATE_LIMIT}); a due
 *       series patch without one waits for a later sweep (its count is not lost).
 *   <li><b>Bounded memory.</b> At most {@link EventRecorderSettings#maxKeys} keys, the least
 *       recently observed forgotten first; keys not observed for {@link
 *       EventRecorderSettings#forgetAfter} are forgotten by the sweep.
 *   <li><b>Never blocks, never throws.</b> {@link #warn} takes a lock for a map lookup and a token
 *       (about a microsecond, warm); the Event is built and the fabric8 calls run on one worker
 *       thread with a bounded queue, and what does not fit is dropped and counted ({@link
 *       EventResult#DROPPED_QUEUE_FULL}). API failures are counted and logged at most once a minute
 *       per kind of failure.
 * </ul>
 *
 * <p>Threading: {@link #warn} from any thread. The scheduler's sweep may run on any thread (the
 * state is under one lock); wall times ({@code eventTime}, {@code lastObservedTime}) come from the
 * injected clock, intervals from the scheduler's monotonic time.
 */
public final class EventRecorder implements AutoCloseable {

  private final Reporter reporter;
  private final Scheduler scheduler;
  private final Clock clock;
  private final EventObserver observer;
  private final Worker worker;
  private final EventApi api;
  private final long seriesIntervalNanos;
  private final long forgetAfterNanos;
  private final long sweepEveryNanos;

  private final Object lock = new Object();
  // All below guarded by lock.
  private final TokenBucket bucket;
  private final Map<String, Series> series;
  private Scheduler.Cancellable sweep;
  private boolean closed;

  /**
   * A recorder writing through {@code client} on its own worker thread; it sweeps on {@code
   * scheduler} until {@link #close}d.
   */
  public static EventRecorder start(
      KubernetesClient client,
      Reporter reporter,
      EventRecorderSettings settings,
      Scheduler scheduler,
      Clock clock,
      EventObserver observer) {
    return new EventRecorder(
        client,
        reporter,
        settings,
        scheduler,
        clock,
        observer,
        new SingleThreadWorker(settings.queueCapacity()));
  }

  EventRecorder(
      KubernetesClient client,
      Reporter reporter,
      EventRecorderSettings settings,
      Scheduler scheduler,
      Clock clock,
      EventObserver observer,
      Worker worker) {
    this.reporter = Objects.requireNonNull(reporter, "reporter");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.observer = Objects.requireNonNull(observer, "observer");
    this.worker = Objects.requireNonNull(worker, "worker");
    this.api =
        new EventApi(Objects.requireNonNull(client, "client"), new FailureLog(scheduler::nanoTime));
    this.seriesIntervalNanos = settings.seriesInterval().toNanos();
    this.forgetAfterNanos = settings.forgetAfter().toNanos();
    this.sweepEveryNanos = settings.sweepEvery().toNanos();
    this.bucket =
        new TokenBucket(settings.burst(), settings.refillEvery().toNanos(), scheduler.nanoTime());
    int maxKeys = settings.maxKeys();
    // Access order: a lookup makes a key the most recently observed; the eldest goes first.
    this.series =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Series> eldest) {
            return size() > maxKeys;
          }
        };
    synchronized (lock) {
      sweep = scheduler.schedule(sweepEveryNanos, this::sweep);
    }
  }

  /**
   * One Warning Event about {@code subject.regarding()}, deduplicated by {@code
   * subject.dedupKey()}. Returns at once: writes are queued for the worker thread, or dropped and
   * counted. Thread: any.
   */
  public void warn(EventSubject subject) {
    Objects.requireNonNull(subject, "subject");
    Write write;
    boolean dropped;
    synchronized (lock) {
      if (closed) {
        return;
      }
      long now = scheduler.nanoTime();
      Instant wall = clock.instant();
      Series known = series.get(subject.dedupKey());
      if (known == null) {
        if (!bucket.tryTake(now)) {
          write = null;
        } else {
          known = new Series(subject, wall, now);
          series.put(subject.dedupKey(), known);
          write = known.startWrite(now);
        }
      } else {
        known.observe(wall, now);
        write =
            known.due(now, seriesIntervalNanos) && bucket.tryTake(now)
                ? known.startWrite(now)
                : null;
      }
      // A dropped new key is not remembered: a later observation tries again, as a new Event.
      dropped = known == null;
    }
    if (dropped) {
      observer.recorded(EventResult.DROPPED_RATE_LIMIT);
    } else if (write != null) {
      submit(write);
    }
  }

  /** Stops sweeping and drops queued writes. Idempotent; later {@link #warn}s are ignored. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      sweep.cancel();
      series.clear();
    }
    worker.close();
  }

  /** How many keys are remembered now (bounded by {@link EventRecorderSettings#maxKeys}). */
  int trackedKeys() {
    synchronized (lock) {
      return series.size();
    }
  }

  /** A cluster-scoped object's Events (a Node's) live in {@code default}, as the kubelet's do. */
  static String eventNamespace(ObjectReference regarding) {
    String namespace = regarding.getNamespace();
    return namespace == null || namespace.isBlank() ? "default" : namespace;
  }

  private Event event(EventSubject subject, Instant wall) {
    ObjectReference regarding = subject.regarding();
    return new EventBuilder()
        .withNewMetadata()
        .withNamespace(eventNamespace(regarding))
        .withName(EventFields.name(regarding.getName(), subject.dedupKey()))
        .endMetadata()
        .withType("Warning")
        .withReason(subject.reason())
        .withAction(subject.action())
        .withNote(EventFields.note(subject.note()))
        .withRegarding(regarding)
        .withRelated(subject.related())
        .withReportingController(reporter.controller())
        .withReportingInstance(reporter.instance())
        .withEventTime(new MicroTime(EventFields.microTime(wall)))
        .build();
  }

  /** Sends the series patches that fell due, forgets old keys, and schedules itself again. */
  private void sweep() {
    List<Write> writes = new ArrayList<>();
    synchronized (lock) {
      if (closed) {
        return;
      }
      long now = scheduler.nanoTime();
      Iterator<Series> it = series.values().iterator();
      while (it.hasNext()) {
        Series s = it.next();
        if (!s.inFlight && now - s.lastObservedNanos >= forgetAfterNanos) {
          it.remove();
        } else if (s.due(now, seriesIntervalNanos) && bucket.tryTake(now)) {
          writes.add(s.startWrite(now));
        }
      }
      sweep = scheduler.schedule(sweepEveryNanos, this::sweep);
    }
    writes.forEach(this::submit);
  }

  private void submit(Write write) {
    if (worker.offer(() -> perform(write))) {
      return;
    }
    synchronized (lock) {
      Series s = write.series();
      s.inFlight = false;
      if (s.sentCount == 0) {
        // Never written: forget it, so a later observation is a new Event again.
        series.remove(s.key, s);
      }
    }
    observer.recorded(EventResult.DROPPED_QUEUE_FULL);
  }

  /** On the worker thread. */
  private void perform(Write write) {
    Series s = write.series();
    if (s.body == null) {
      // Built here, not in warn(): hashing the key and building the model is the worker's time.
      s.body = event(s.subject, s.firstObserved);
    }
    Outcome outcome =
        write.create()
            ? api.create(s.body, write.count(), write.lastObserved())
            : api.patchSeries(s.body, write.count(), write.lastObserved());
    synchronized (lock) {
      s.inFlight = false;
      // An Event that outlived an agent restart: its earlier observations count too.
      s.count += outcome.adopted();
      s.sentCount = Math.max(s.sentCount, outcome.countWritten());
    }
    observer.recorded(outcome.result());
  }

  /** One write to make: a snapshot of a key's state when it was queued. */
  private record Write(Series series, boolean create, int count, Instant lastObserved) {}

  /**
   * What the recorder remembers of one key. Guarded by the recorder's lock, except the final
   * fields.
   */
  private static final class Series {
    final String key;
    final EventSubject subject;
    final Instant firstObserved;
    // Confined to the worker thread (built at the first write), not guarded by the lock.
    Event body;
    int count;
    int sentCount;
    Instant lastObserved;
    long lastObservedNanos;
    long lastWriteNanos;
    boolean inFlight;

    Series(EventSubject subject, Instant wall, long nanos) {
      this.key = subject.dedupKey();
      this.subject = subject;
      this.firstObserved = wall;
      this.count = 1;
      this.lastObserved = wall;
      this.lastObservedNanos = nanos;
    }

    void observe(Instant wall, long nanos) {
      if (count < Integer.MAX_VALUE) {
        count++;
      }
      lastObserved = wall;
      lastObservedNanos = nanos;
    }

    /** Observations the API has not seen, and the last write at least an interval ago. */
    boolean due(long now, long intervalNanos) {
      return !inFlight && count > sentCount && now - lastWriteNanos >= intervalNanos;
    }

    Write startWrite(long now) {
      inFlight = true;
      lastWriteNanos = now;
      // Created only once: after that a patch, which recreates the Event if it is gone.
      return new Write(this, sentCount == 0, count, lastObserved);
    }
  }
}
