package dev.routesync.kube.events;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One daemon thread and a bounded queue: fabric8's calls block, and the drift detector calls from
 * the sync event loop, which must never wait on the API server. A full queue refuses instead of
 * blocking ({@link ThreadPoolExecutor.AbortPolicy}, caught).
 */
final class SingleThreadWorker implements Worker {

  private static final Logger LOG = LoggerFactory.getLogger(SingleThreadWorker.class);

  private final ThreadPoolExecutor executor;

  SingleThreadWorker(int queueCapacity) {
    executor =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(queueCapacity),
            task -> {
              Thread thread = new Thread(task, "routesync-events");
              thread.setDaemon(true);
              return thread;
            },
            new ThreadPoolExecutor.AbortPolicy());
  }

  @Override
  public boolean offer(Runnable task) {
    try {
      executor.execute(() -> runGuarded(task));
      return true;
    } catch (RejectedExecutionException full) {
      return false;
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  private static void runGuarded(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      // The recorder's tasks catch their own failures; this keeps a bug from killing the thread.
      LOG.error("Event write failed unexpectedly", e);
    }
  }
}
