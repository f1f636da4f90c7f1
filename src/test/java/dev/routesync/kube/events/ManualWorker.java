package dev.routesync.kube.events;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A {@link Worker} that only queues: the test runs the queued API calls when it chooses, on its own
 * thread. A task still queued proves the caller did not make the call itself.
 */
final class ManualWorker implements Worker {

  private final int capacity;
  private final Deque<Runnable> queue = new ArrayDeque<>();
  private boolean closed;

  ManualWorker(int capacity) {
    this.capacity = capacity;
  }

  @Override
  public synchronized boolean offer(Runnable task) {
    if (closed || queue.size() >= capacity) {
      return false;
    }
    queue.add(task);
    return true;
  }

  @Override
  public synchronized void close() {
    closed = true;
    queue.clear();
  }

  synchronized int pending() {
    return queue.size();
  }

  /** Runs every queued task, in order, including any queued meanwhile; returns how many ran. */
  int runAll() {
    int ran = 0;
    while (true) {
      Runnable next;
      synchronized (this) {
        next = queue.poll();
      }
      if (next == null) {
        return ran;
      }
      next.run();
      ran++;
    }
  }
}
