package dev.routesync.drift;

/** The detector's latest snapshot, for readers on any thread. */
@FunctionalInterface
public interface DriftView {

  /** The latest published snapshot; never blocks. */
  DriftSnapshot current();

  /** A view of a detector that does not run. */
  static DriftView off(String why) {
    DriftSnapshot snapshot = DriftSnapshot.off(why);
    return () -> snapshot;
  }
}
