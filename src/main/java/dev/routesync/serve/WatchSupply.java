package dev.routesync.serve;

/**
 * What every Watch stream shares: each Service's encoding ({@link ServiceEncodings}), the latest
 * all-namespaces snapshot ({@link SharedSnapshots}) and the budget of bytes waiting to be written
 * ({@link WatchBytes}).
 */
record WatchSupply(ServiceEncodings encodings, SharedSnapshots snapshots, WatchBytes bytes) {

  /** The agent's: shared encodings, and a pending budget of a sixth of the heap. */
  static WatchSupply of(ServiceEncodings encodings) {
    return new WatchSupply(encodings, new SharedSnapshots(), WatchBytes.ofThisHeap());
  }
}
