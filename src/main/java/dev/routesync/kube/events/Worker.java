package dev.routesync.kube.events;

/**
 * Runs the recorder's blocking API calls away from its callers, one at a time, in the order offered
 * (so a key's create runs before its patches).
 */
interface Worker {

  /** Queues {@code task}; false, at once, when the queue is full or the worker closed. */
  boolean offer(Runnable task);

  /** Stops: queued tasks are dropped and the running one interrupted. Idempotent. */
  void close();
}
