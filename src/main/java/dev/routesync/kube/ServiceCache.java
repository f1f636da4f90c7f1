package dev.routesync.kube;

import dev.routesync.kube.translate.ObjectTranslation;
import dev.routesync.kube.translate.ServiceMerge;
import dev.routesync.kube.translate.Skip;
import dev.routesync.kube.translate.Translation;
import dev.routesync.kube.watch.Generation;
import dev.routesync.sync.EndpointLookup;
import dev.routesync.table.NodeLocality;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.ServiceTraffic;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The watch cache the reconciler reads: the served {@link Generation}'s stored objects (each
 * translated once when it arrived, {@link ObjectStore}), merged per Service on demand, with the
 * ports the Service declares (from the Services watch) and the newest trigger time of its objects;
 * {@link ServiceEventSink} swaps in each new generation. Skips are reported here, once per object
 * version.
 *
 * <p>Threading: read and swapped on the sync context; {@link #served} is also read by the informers
 * of a generation being listed.
 */
public final class ServiceCache<T extends HasMetadata> implements EndpointLookup {

  /** Set by the EndpointSlice and Endpoints controllers to when the triggering change happened. */
  public static final String TRIGGER_TIME_ANNOTATION = ObjectStore.TRIGGER_TIME_ANNOTATION;

  private final SkipReporter skips;
  private final CountedSkips counted = new CountedSkips();
  private final Function<ServiceKey, List<Port>> declaredPorts;
  private final Function<ServiceKey, ServiceTraffic> traffic;
  private final Supplier<NodeLocality> here;
  private final ServiceSkips serviceSkips;
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
    this(kind, skips, declaredPorts, key -> ServiceTraffic.DEFAULT, () -> NodeLocality.UNKNOWN);
  }

  /**
   * @param traffic a Service's traffic settings ({@link ServicePorts#trafficOf})
   * @param here where this node is, read at each lookup: the topology decision is made with the
   *     state, once per change, and shared by every client
   */
  public ServiceCache(
      WatchedKind<T> kind,
      SkipReporter skips,
      Function<ServiceKey, List<Port>> declaredPorts,
      Function<ServiceKey, ServiceTraffic> traffic,
      Supplier<NodeLocality> here) {
    this(kind, skips, declaredPorts, traffic, here, ServiceSkips.NONE);
  }

  /**
   * @param serviceSkips what was skipped or cut of the Service object itself ({@link
   *     ServicePorts}), counted once per version like its objects' skips
   */
  public ServiceCache(
      WatchedKind<T> kind,
      SkipReporter skips,
      Function<ServiceKey, List<Port>> declaredPorts,
      Function<ServiceKey, ServiceTraffic> traffic,
      Supplier<NodeLocality> here,
      ServiceSkips serviceSkips) {
    this.serviceSkips = serviceSkips;
    this.skips = skips;
    this.declaredPorts = declaredPorts;
    this.traffic = traffic;
    this.here = here;
  }

  @Override
  public Optional<ServiceState> stateOf(ServiceKey key) {
    return find(key).map(Found::state);
  }

  /** The Service's state and trigger time: one index read, no parsing (done when objects came). */
  @Override
  public Optional<Found> find(ServiceKey key) {
    Generation<T> generation = current;
    if (generation == null) {
      return Optional.empty();
    }
    List<StoredObject<T>> objects = ServiceIndex.objectsOf(generation, key);
    if (objects.isEmpty()) {
      return withoutObjects(key);
    }
    Instant newest = null;
    List<ObjectTranslation> translations = new ArrayList<>(objects.size());
    for (StoredObject<T> object : objects) {
      translations.add(object.translation());
      Instant trigger = object.triggerTime();
      if (trigger != null && (newest == null || trigger.isAfter(newest))) {
        newest = trigger;
      }
    }
    ServiceTraffic settings = traffic.apply(key);
    Translation merged = ServiceMerge.merge(translations, settings, key);
    List<Skip> found = merged.skips();
    Optional<Skip> portsCut = serviceSkips.portsSkipOf(key);
    if (portsCut.isPresent()) {
      found = new ArrayList<>(found);
      found.add(portsCut.get());
    }
    counted.firstSeen(key, found).forEach(skips::report);
    return Optional.of(
        new Found(
            ServiceState.decided(
                merged.endpoints(), declaredPorts.apply(key), settings, here.get()),
            newest,
            objects.get(0).service()));
  }

  /**
   * A Service with no slices (or Endpoints): an entry only when it is an ExternalName, which has
   * none by design (the controllers make none for it) and is published so that clients learn where
   * its name points; nothing for any other. An ExternalName without a usable external name is
   * counted as skipped and not served.
   */
  private Optional<Found> withoutObjects(ServiceKey key) {
    Optional<Skip> malformed = serviceSkips.externalNameSkipOf(key);
    if (malformed.isPresent()) {
      counted.firstSeen(key, List.of(malformed.get())).forEach(skips::report);
      return Optional.empty();
    }
    ServiceTraffic settings = traffic.apply(key);
    if (!settings.isExternalName()) {
      counted.forget(key);
      return Optional.empty();
    }
    // Served: a cut of its declared ports is news, as with objects.
    counted.firstSeen(key, serviceSkips.portsSkipOf(key).stream().toList()).forEach(skips::report);
    return Optional.of(
        new Found(
            ServiceState.decided(List.of(), declaredPorts.apply(key), settings, here.get()),
            null,
            key));
  }

  /**
   * The served generation's stored object under a fabric8 key ({@code namespace/name}), or null: a
   * relisting generation's store reuses it when the version is unchanged. Any thread.
   */
  StoredObject<T> served(String key) {
    Generation<T> generation = current;
    if (generation == null) {
      return null;
    }
    int slash = key.indexOf('/');
    ObjectStore<T> store =
        ServiceIndex.storeOf(generation, slash < 0 ? null : key.substring(0, slash));
    return store == null ? null : store.stored(key);
  }

  /** Object versions whose skips are remembered as counted (bounded by the malformed objects). */
  int countedSkips() {
    return counted.size();
  }

  void swap(Generation<T> next) {
    current = next;
  }
}
