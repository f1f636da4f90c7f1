package dev.routesync.kube.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * What a {@link Generation} tells its owner. Each call names the generation it comes from, so the
 * owner can tell a current generation from one that was already replaced or is still syncing.
 *
 * <p>Threading: called on fabric8's informer threads. Implementations only record or hop onto their
 * own context; they never block.
 */
public interface GenerationListener<T extends HasMetadata> {

  /** Every informer of the generation has listed and is watching. At most once. */
  void synced(Generation<T> generation);

  /**
   * A list or watch of the generation failed and its informer stopped. May come more than once (one
   * per informer), also after {@link #synced}.
   */
  void failed(Generation<T> generation, Throwable error);

  /** An object was added, updated or deleted in the generation's cache. */
  void event(Generation<T> generation, WatchEvent<T> event);

  /**
   * fabric8 is relisting in place after a 410 Gone (the server compacted past our resourceVersion);
   * the differences arrive as ordinary events.
   */
  void relistingInPlace(Generation<T> generation);
}
