package dev.routesync.kube;

import dev.routesync.kube.translate.Translation;
import dev.routesync.kube.watch.Generation;
import dev.routesync.sync.EndpointLookup;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The watch cache the reconciler reads: the served {@link Generation}'s objects, translated per
 * Service on demand, with the ports the Service declares (from the Services watch); {@link
 * ServiceEventSink} swaps in each new generation. Skips found while translating are reported here,
 * once per object version.
 *
 * <p>Threading: read and swapped on the sync context.
 */
public final class ServiceCache<T extends HasMetadata> implements EndpointLookup {

  /** Set by the EndpointSlice and Endpoints controllers to when the triggering change happened. */
  public static final String TRIGGER_TIME_ANNOTATION =
      "endpoints.kubernetes.io/last-change-trigger-time";

  private final WatchedKind<T> kind;
  private final SkipReporter skips;
  private final CountedSkips counted = new CountedSkips();
  private final Function<ServiceKey, List<Port>> declaredPorts;
  private volatile Generation<T> current;

  /** A cache that knows no Service's declared ports. */
  public ServiceCache(WatchedKind<T> kind, SkipReporter skips) {
    this(kind, skips, key -> List.of());
  }

  /**
   * @param declaredPorts the ports a Service declares, sorted by name; empty when unknown ({@link
   *     ServicePorts#portsOf})
   */
  public ServiceCache(
      WatchedKind<T> kind, SkipReporter skips, Function<ServiceKey, List<Port>> declaredPorts) {
    this.kind = kind;
    this.skips = skips;
    this.declaredPorts = declaredPorts;
  }

  @Override
  public Optional<ServiceState> stateOf(ServiceKey key) {
    Generation<T> generation = current;
    if (generation == null) {
      return Optional.empty();
    }
    List<T> objects = ServiceIndex.objectsOf(generation, key);
    if (objects.isEmpty()) {
      counted.forget(key);
      return Optional.empty();
    }
    Translation translation = kind.translate(objects);
    counted.firstSeen(key, translation.skips()).forEach(skips::report);
    return Optional.of(new ServiceState(translation.endpoints(), declaredPorts.apply(key)));
  }

  /**
   * The newest {@code endpoints.kubernetes.io/last-change-trigger-time} of the service's objects.
   */
  @Override
  public Optional<Instant> triggerTimeOf(ServiceKey key) {
    Generation<T> generation = current;
    if (generation == null) {
      return Optional.empty();
    }
    Instant newest = null;
    for (T object : ServiceIndex.objectsOf(generation, key)) {
      var annotations = object.getMetadata() == null ? null : object.getMetadata().getAnnotations();
      String text = annotations == null ? null : annotations.get(TRIGGER_TIME_ANNOTATION);
      if (text == null) {
        continue;
      }
      try {
        Instant trigger = Instant.parse(text);
        newest = newest == null || trigger.isAfter(newest) ? trigger : newest;
      } catch (java.time.format.DateTimeParseException e) {
        // A bad annotation only costs the metric; the endpoints are still published.
      }
    }
    return Optional.ofNullable(newest);
  }

  /** Object versions whose skips are remembered as counted (bounded by the malformed objects). */
  int countedSkips() {
    return counted.size();
  }

  void swap(Generation<T> next) {
    current = next;
  }
}
