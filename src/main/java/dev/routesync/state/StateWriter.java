package dev.routesync.state;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.units.Durations;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the published table to the state file: at most once per {@code --state-flush}, the first
 * publish after a quiet spell at once, and the last publish always (trailing edge); a graceful stop
 * writes the final table once more, marked complete.
 *
 * <p>Only tables the agent serves are written ({@link TableTrust#servable()}): the empty
 * placeholder of an agent that never synced must never become the next start's table.
 *
 * <p>Threading: {@link #offer} runs on the sync context (the table's writer) and only swaps one
 * reference and, at most once per flush, queues a task: the sync context never waits for a disk.
 * The encoding and the IO run on one daemon worker thread, {@code routesync-state}. A failed write
 * (disk full, read-only) is counted, warned about once per failing streak, and retried at the next
 * flush tick; publishing never waits for it.
 */
public final class StateWriter {

  private static final Logger LOG = LoggerFactory.getLogger(StateWriter.class);

  private final StateFile file;
  private final long flushNanos;
  private final WritePacing pacing;
  private final Clock clock;
  private final Supplier<Optional<Instant>> syncedAt;
  private final StateObserver observer;
  private final ScheduledThreadPoolExecutor worker;
  private final AtomicReference<RoutingTable> latest = new AtomicReference<>();
  private final AtomicBoolean armed = new AtomicBoolean();
  private volatile boolean closed;
  private volatile TableWriter table;
  private volatile TableTrust trust;

  // The worker's own state.
  private long writtenVersion = -1;
  private long lastAttemptNanos;
  private long lastDurationNanos;
  private boolean attempted;
  private boolean failing;

  /**
   * @param syncedAt the agent's {@code synced_at}, read at each write (the file carries it)
   */
  public StateWriter(
      StateFile file,
      Duration flush,
      Clock clock,
      Supplier<Optional<Instant>> syncedAt,
      StateObserver observer) {
    this.file = Objects.requireNonNull(file);
    this.flushNanos = flush.toNanos();
    this.pacing = new WritePacing(flushNanos);
    this.clock = Objects.requireNonNull(clock);
    this.syncedAt = Objects.requireNonNull(syncedAt);
    this.observer = Objects.requireNonNull(observer);
    this.worker =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = new Thread(runnable, "routesync-state");
              thread.setDaemon(true);
              return thread;
            });
    worker.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    worker.setRemoveOnCancelPolicy(true);
  }

  /**
   * Follows {@code table}: each publish, and each rise of {@code trust}, offers the table then
   * current once it is servable. Attach after a restored table's trust is raised: that table is
   * already on disk.
   */
  public void attach(TableWriter table, TableTrust trust) {
    this.table = table;
    this.trust = trust;
    table.onPublish(
        published -> {
          if (trust.servable()) {
            offer(published);
          }
        });
    trust.onRaise(
        () -> {
          if (trust.servable()) {
            offer(table.current());
          }
        });
  }

  /** Queues {@code table} to be written; never blocks. Any thread. */
  public void offer(RoutingTable next) {
    if (closed) {
      return;
    }
    latest.set(next);
    if (armed.compareAndSet(false, true)) {
      try {
        worker.execute(this::arm);
      } catch (RejectedExecutionException e) {
        armed.set(false); // closing
      }
    }
  }

  // Worker: the write is due a flush after the last attempt (at once after a quiet spell), or
  // later when the last write was slow (WritePacing).
  private void arm() {
    long delay =
        attempted ? pacing.delayNanos(lastAttemptNanos, lastDurationNanos, System.nanoTime()) : 0;
    worker.schedule(this::flushNow, delay, TimeUnit.NANOSECONDS);
  }

  private void flushNow() {
    armed.set(false); // a publish from now on arms the next tick
    RoutingTable next = latest.get();
    if (next == null || next.version() == writtenVersion) {
      return;
    }
    if (!writeOnce(next, false) && armed.compareAndSet(false, true)) {
      arm(); // retried at the next tick, with whatever is latest then
    }
  }

  private boolean writeOnce(RoutingTable next, boolean complete) {
    lastAttemptNanos = System.nanoTime();
    attempted = true;
    try {
      file.write(next, clock.instant(), syncedAt.get(), complete);
      lastDurationNanos = System.nanoTime() - lastAttemptNanos;
      writtenVersion = next.version();
      observer.written(true);
      if (failing) {
        failing = false;
        LOG.info("state file {} written again (version {})", file.path(), next.version());
      }
      return true;
    } catch (IOException | RuntimeException e) {
      observer.written(false);
      if (!failing) {
        failing = true;
        LOG.warn(
            "cannot write the state file {} ({}); serving goes on, retrying every {}",
            file.path(),
            e.toString(),
            Durations.formatNanos(flushNanos));
      }
      return false;
    }
  }

  /**
   * Writes the served table once more, marked complete (call once the agent has stopped serving, so
   * nothing newer than it was ever seen), then stops the worker. The future completes when the
   * write is done or has failed; the caller bounds the wait.
   */
  public CompletableFuture<Void> close() {
    closed = true;
    TableWriter followed = table;
    TableTrust followedTrust = trust;
    RoutingTable last =
        followed != null && followedTrust != null && followedTrust.servable()
            ? followed.current()
            : null;
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      worker.execute(
          () -> {
            try {
              if (last != null) {
                writeOnce(last, true);
              }
            } finally {
              done.complete(null);
            }
          });
    } catch (RejectedExecutionException e) {
      done.complete(null);
    }
    worker.shutdown();
    return done;
  }

  /**
   * Stops the worker at once: a scheduled flush is dropped and nothing more is written, as when the
   * process is killed. Returns once the worker's thread has ended.
   */
  public void halt() throws InterruptedException {
    closed = true;
    worker.shutdownNow();
    if (!worker.awaitTermination(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the state writer's thread did not stop");
    }
  }
}
