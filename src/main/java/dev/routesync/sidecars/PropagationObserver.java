package dev.routesync.sidecars;

/**
 * Told each propagation sample, for the exported histogram (observe/). Called on stream event
 * loops: cheap, thread-safe, never throws, allocates nothing.
 */
public interface PropagationObserver {

  /** A client of {@code protocol} acknowledged a change {@code millis} after its trigger time. */
  void propagated(Protocol protocol, long millis);

  PropagationObserver NONE = (protocol, millis) -> {};
}
