package dev.routesync.state;

/** What persistence reports (observe/ maps it to meters). Any thread. */
public interface StateObserver {

  /** A state file found at start was not loaded. */
  void loadFailed(LoadFailure reason);

  /** A table was restored at start, with this many Services. */
  void restored(int services);

  /** A write of the state file succeeded or failed. */
  void written(boolean ok);

  /** Reports nothing (tests, tools). */
  StateObserver NONE =
      new StateObserver() {
        @Override
        public void loadFailed(LoadFailure reason) {}

        @Override
        public void restored(int services) {}

        @Override
        public void written(boolean ok) {}
      };
}
