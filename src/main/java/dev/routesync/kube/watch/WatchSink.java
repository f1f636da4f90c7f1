package dev.routesync.kube.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * The consumer of one {@link ResourceWatch}: what the watched objects mean is its business.
 *
 * <p>Threading: called on the watch's sync context only.
 */
public interface WatchSink<T extends HasMetadata> {

  /**
   * A new generation has synced and is now the one served; {@code previous} (null the first time)
   * is stopped right after this returns, its cache still readable until then. A consumer that
   * derives state from the cache recomputes here everything either generation holds.
   */
  void replaced(Generation<T> previous, Generation<T> next);

  /**
   * An event of the generation being served. Events of a generation still syncing are not passed
   * on: it is handed over whole in {@link #replaced}.
   */
  void event(WatchEvent<T> event);
}
