package dev.routesync.kube.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;

/**
 * One informer callback, as a value that can hop threads.
 *
 * @param type what happened
 * @param previous the object before an update; null for adds and deletes
 * @param object the object added or deleted, or the object after an update
 * @param arrivedNanos {@link dev.routesync.sync.Scheduler#nanoTime()} when the informer delivered
 *     it, so latency is measured from arrival, not from when the sync context got to it
 */
public record WatchEvent<T extends HasMetadata>(
    Type type, T previous, T object, long arrivedNanos) {

  public WatchEvent {
    Objects.requireNonNull(type, "type");
  }

  /** The kind of change, with its {@code type} label on {@code routesync.events}. */
  public enum Type {
    ADDED("added"),
    UPDATED("updated"),
    DELETED("deleted");

    private final String label;

    Type(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }
}
