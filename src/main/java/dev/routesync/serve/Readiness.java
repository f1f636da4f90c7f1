package dev.routesync.serve;

import java.util.List;
import java.util.function.Supplier;

/**
 * Whether the agent should receive traffic: the first full list is published (or a table restored
 * from the state file is served), the socket is listening and its file is still the one sidecars
 * reach it by, and it is not shutting down. Flags flip from any thread; reads never block.
 *
 * <p>A restored table is ready although stale: static stability. The node's sidecars have nowhere
 * else to get routes, and while the API server is away the last known table beats an empty node. An
 * agent unready for a table it does serve would only stall the DaemonSet's rollout and page people
 * about the API server, which is not its fault. The API's answers and the metrics say that the
 * table is stale.
 */
public final class Readiness {

  private volatile boolean initialSyncDone;
  private volatile boolean tableRestored;
  private volatile boolean socketListening;
  private volatile boolean draining;
  private volatile Supplier<String> socketFile = () -> "";
  // Why the watches are held back (the heap budget), or empty: served stale, ready all the same.
  private volatile String heldBack = "";

  public void initialSyncDone() {
    initialSyncDone = true;
  }

  /** A table restored from the state file is served: ready before the first list. */
  public void tableRestored() {
    tableRestored = true;
  }

  public void socketListening(boolean listening) {
    socketListening = listening;
  }

  /**
   * Checked on every readiness read: empty while the socket file is in place, otherwise why not. A
   * deleted or replaced socket file leaves the agent running but unreachable for new sidecars.
   */
  public void socketFileCheck(Supplier<String> check) {
    socketFile = check;
  }

  public void draining() {
    draining = true;
  }

  /**
   * The watches are held back, for {@code why}: the table is served as it stands, so a ready agent
   * stays ready (static stability) and says why in {@link #warnings()}; one that has no table yet
   * says it in its reason.
   */
  public void watchesHeldBack(String why) {
    heldBack = why;
  }

  public void watchesResumed() {
    heldBack = "";
  }

  /** What an operator should know that does not make the agent unready; empty when nothing. */
  public List<String> warnings() {
    String why = heldBack;
    return why.isEmpty() ? List.of() : List.of("watches held back: " + why);
  }

  public boolean isReady() {
    return reason().isEmpty();
  }

  /** Why not ready, for the probe's body; empty when ready. */
  public String reason() {
    if (draining) {
      return "shutting down";
    }
    if (!initialSyncDone && !tableRestored) {
      String why = heldBack;
      return why.isEmpty()
          ? "initial sync from the API server not done"
          : "initial sync from the API server not done: watches held back: " + why;
    }
    if (!socketListening) {
      return "socket not listening";
    }
    return socketFile.get();
  }
}
