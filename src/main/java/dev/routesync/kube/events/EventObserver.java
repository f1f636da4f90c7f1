package dev.routesync.kube.events;

/**
 * Told what became of each Event write. The metrics behind it live in {@code observe/}, wired by
 * the agent.
 *
 * <p>Threading: called on the caller's thread (drops) and on the recorder's worker thread (API
 * results); implementations must be thread-safe, cheap, and must not throw.
 */
public interface EventObserver {

  /** Ignores everything: for callers that do not count. */
  EventObserver NONE = result -> {};

  void recorded(EventResult result);
}
