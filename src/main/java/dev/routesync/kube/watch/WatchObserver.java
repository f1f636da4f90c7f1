package dev.routesync.kube.watch;

import java.util.function.LongSupplier;

/**
 * What a {@link ResourceWatch} tells the outside about one watched kind: its events, its relists
 * and whether it is connected. The watch knows only this interface; the metrics behind it live in
 * {@code observe/}, wired by the agent with the kind they are for.
 *
 * <p>Implementations must be cheap and must not throw.
 */
public interface WatchObserver {

  /** An informer delivered an event. Called on fabric8's threads. */
  void event(WatchEvent.Type type);

  /** A generation's list completed and it is now the one served. Sync context. */
  default void listed() {}

  /** A new generation started listing, or fabric8 relisted in place. */
  void relist(RelistReason reason);

  /**
   * A bookmark arrived: the served generation's resourceVersion moved with no event. Sampled (see
   * {@code SilenceWatchdog}), so bookmarks close together may be one call. Sync context.
   */
  default void bookmark() {}

  /** The agent gave up on a watch that still looked connected; a relist follows. Sync context. */
  default void restarted(RestartReason reason) {}

  /** The watch is established ({@code true}) or down. Sync context. */
  void connected(boolean connected);

  /**
   * Where to read how long the watch has been down (0 while up), from any thread, for as long as
   * the agent runs. Called once per watch.
   */
  void bindDisconnected(LongSupplier disconnectedNanos);
}
