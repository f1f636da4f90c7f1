package dev.routesync;

import dev.routesync.config.AgentConfig;
import dev.routesync.kube.CompactForms;
import dev.routesync.kube.NodeTopology;
import dev.routesync.kube.ServiceCache;
import dev.routesync.kube.ServiceEventSink;
import dev.routesync.kube.ServiceIndex;
import dev.routesync.kube.ServicePorts;
import dev.routesync.kube.ServicePortsSink;
import dev.routesync.kube.SkipReporter;
import dev.routesync.kube.StorageProbe;
import dev.routesync.kube.WatchedKind;
import dev.routesync.kube.watch.ResourceSpec;
import dev.routesync.kube.watch.ResourceWatch;
import dev.routesync.kube.watch.WatchObserver;
import dev.routesync.kube.watch.WatchSink;
import dev.routesync.kube.watch.WatchSinks;
import dev.routesync.observe.Metrics;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.sync.Coalescer;
import dev.routesync.sync.Reconciler;
import dev.routesync.sync.VertxScheduler;
import dev.routesync.table.Freshness;
import dev.routesync.table.TableWriter;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.Map;
import java.util.Random;

/**
 * Builds the agent's watches: the table's (slices or Endpoints, into a coalescer and the table),
 * the Services watch and the drift detector's Pods watch. Each runs on the sync context with the
 * configured recovery, and none starts here: the agent starts them as its parts.
 */
record WatchWiring(
    AgentConfig config,
    Vertx vertx,
    Context syncContext,
    KubernetesClient client,
    StorageProbe storage,
    Metrics metrics,
    Freshness freshness,
    NodeTopology topology,
    TableWriter table,
    Sidecars sidecars) {

  /** The table's watch of one kind, with its coalescer, and the Services watch's inputs. */
  record Table<T extends HasMetadata>(
      Coalescer coalescer,
      ResourceWatch<T> supervisor,
      ServicePorts servicePorts,
      WatchSink<Service> servicesSink) {}

  /**
   * @param forms what {@code alsoTo} keeps of each object, made by the informer's store, or null
   * @param alsoTo a second consumer of the watch (the drift detector), or null
   */
  <T extends HasMetadata> Table<T> table(
      WatchedKind<T> kind, SkipReporter skips, CompactForms<T, ?> forms, WatchSink<T> alsoTo) {
    ServicePorts servicePorts = new ServicePorts();
    ServiceCache<T> cache =
        new ServiceCache<>(
            kind, skips, servicePorts::portsOf, servicePorts::trafficOf, topology, servicePorts);
    Coalescer newCoalescer =
        new Coalescer(
            new VertxScheduler(vertx),
            config.coalescer(),
            new Reconciler(cache, table, new TriggerFeed(metrics.sync(), sidecars.ledger())));
    ResourceSpec<T> spec = ServiceIndex.spec(kind, client, config.watch(), cache, forms);
    WatchSink<T> sink = new ServiceEventSink<>(kind, cache, newCoalescer, skips);
    ResourceWatch<T> newSupervisor =
        new ResourceWatch<>(
            spec,
            config.watch().recovery(),
            alsoTo == null ? sink : WatchSinks.tee(sink, alsoTo),
            syncContext,
            new VertxScheduler(vertx),
            new HeardObserver(metrics.watch(spec.kind()), freshness, Clock.systemUTC()),
            new Random(),
            storage::reachable);
    return new Table<>(
        newCoalescer,
        newSupervisor,
        servicePorts,
        new ServicePortsSink(servicePorts, newCoalescer));
  }

  /**
   * The Services watch: the slice watch's namespaces, selector and recovery, always on, since the
   * table needs the Services' declared ports to count ready endpoints per port.
   */
  ResourceWatch<Service> services(ServicePorts ports, WatchSink<Service> sink) {
    // Each Service kept compact, the served generation's instances reused by a relist.
    ResourceSpec<Service> spec = ServicePorts.spec(client, config.watch(), ports);
    return watch(
        spec, sink, new HeardObserver(metrics.watch(spec.kind()), freshness, Clock.systemUTC()));
  }

  /**
   * This node's pods ({@code fieldSelector spec.nodeName}, which the API server indexes), in the
   * agent's namespaces, with the slice watch's recovery.
   */
  ResourceWatch<Pod> pods(WatchSink<Pod> sink) {
    ResourceSpec<Pod> spec =
        new ResourceSpec<>(
            "Pod",
            config.watch().namespaces(),
            namespace ->
                (namespace == null
                        ? client.pods().inAnyNamespace()
                        : client.pods().inNamespace(namespace))
                    .withField("spec.nodeName", config.nodeName())
                    .runnableInformer(0),
            Map.of());
    return watch(spec, sink, metrics.watch(spec.kind()));
  }

  /** A watch with the slice watch's recovery, on the sync context, gated on the storage probe. */
  private <T extends HasMetadata> ResourceWatch<T> watch(
      ResourceSpec<T> spec, WatchSink<T> sink, WatchObserver observer) {
    return new ResourceWatch<>(
        spec,
        config.watch().recovery(),
        sink,
        syncContext,
        new VertxScheduler(vertx),
        observer,
        new Random(),
        storage::reachable);
  }
}
