package dev.routesync.kube.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Ways to combine {@link WatchSink}s, so that one watch can feed several consumers. */
public final class WatchSinks {

  private static final Logger LOG = LoggerFactory.getLogger(WatchSinks.class);

  private WatchSinks() {}

  /**
   * A sink that hands every call to {@code first}, then to {@code second}. Each is guarded: an
   * exception in one is logged and does not keep the other from its call, so a faulty second
   * consumer (the drift detector, say) can never starve the routing table of its events.
   */
  public static <T extends HasMetadata> WatchSink<T> tee(WatchSink<T> first, WatchSink<T> second) {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(second, "second");
    return new WatchSink<>() {
      @Override
      public void replaced(Generation<T> previous, Generation<T> next) {
        guarded(first, "replaced", () -> first.replaced(previous, next));
        guarded(second, "replaced", () -> second.replaced(previous, next));
      }

      @Override
      public void event(WatchEvent<T> event) {
        guarded(first, event.type().label(), () -> first.event(event));
        guarded(second, event.type().label(), () -> second.event(event));
      }

      @Override
      public String toString() {
        return "tee(" + first + ", " + second + ")";
      }
    };
  }

  private static void guarded(WatchSink<?> sink, String what, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.error("watch sink {} failed on {}; the other sinks still get it", sink, what, e);
    }
  }
}
