package dev.routesync.observe;

/**
 * Whether the agent should receive traffic: the first full list is published and the socket is
 * listening, and it is not shutting down. Flags flip from any thread; reads never block.
 */
public final class Readiness {

  private volatile boolean initialSyncDone;
  private volatile boolean socketListening;
  private volatile boolean draining;

  public void initialSyncDone() {
    initialSyncDone = true;
  }

  public void socketListening(boolean listening) {
    socketListening = listening;
  }

  public void draining() {
    draining = true;
  }

  public boolean isReady() {
    return initialSyncDone && socketListening && !draining;
  }

  /** Why not ready, for the probe's body; empty when ready. */
  public String reason() {
    if (draining) {
      return "shutting down";
    }
    if (!initialSyncDone) {
      return "initial sync from the API server not done";
    }
    if (!socketListening) {
      return "socket not listening";
    }
    return "";
  }
}
