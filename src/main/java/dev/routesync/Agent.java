package dev.routesync;

import dev.routesync.config.AgentConfig;
import dev.routesync.config.Source;
import dev.routesync.config.StateFileCheck;
import dev.routesync.drift.DriftDetector;
import dev.routesync.drift.DriftView;
import dev.routesync.drift.NodeSlice;
import dev.routesync.drift.RecordedDriftEvents;
import dev.routesync.kube.CompactForms;
import dev.routesync.kube.EndpointSliceKind;
import dev.routesync.kube.EndpointsKind;
import dev.routesync.kube.KubeClients;
import dev.routesync.kube.KubeconfigFacts;
import dev.routesync.kube.NodeLabels;
import dev.routesync.kube.NodeTopology;
import dev.routesync.kube.ServiceCache;
import dev.routesync.kube.ServiceEventSink;
import dev.routesync.kube.ServiceIndex;
import dev.routesync.kube.ServicePorts;
import dev.routesync.kube.ServicePortsSink;
import dev.routesync.kube.SkipReporter;
import dev.routesync.kube.StorageProbe;
import dev.routesync.kube.WatchedKind;
import dev.routesync.kube.events.EventRecorder;
import dev.routesync.kube.events.EventRecorderSettings;
import dev.routesync.kube.events.Reporter;
import dev.routesync.kube.watch.ResourceSpec;
import dev.routesync.kube.watch.ResourceWatch;
import dev.routesync.kube.watch.WatchSink;
import dev.routesync.kube.watch.WatchSinks;
import dev.routesync.logs.LogLevels;
import dev.routesync.logs.RecentLines;
import dev.routesync.observe.Metrics;
import dev.routesync.observe.UnhandledExceptions;
import dev.routesync.observe.VertxMetrics;
import dev.routesync.rules.PortSearch;
import dev.routesync.serve.AdminServer;
import dev.routesync.serve.ApiServer;
import dev.routesync.serve.ConnectionGuards;
import dev.routesync.serve.DebugServer;
import dev.routesync.serve.ListenFailures;
import dev.routesync.serve.LivenessVerdict;
import dev.routesync.serve.Readiness;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.startup.Reasons;
import dev.routesync.state.StateFile;
import dev.routesync.state.StateWriter;
import dev.routesync.state.WarmStart;
import dev.routesync.sync.Coalescer;
import dev.routesync.sync.Reconciler;
import dev.routesync.sync.VertxScheduler;
import dev.routesync.table.Freshness;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import dev.routesync.table.TableWriter;
import dev.routesync.units.Durations;
import dev.routesync.xds.XdsServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import java.io.IOException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: wires watch -> coalesce -> table -> serve for one configuration, and owns
 * the lifecycle of everything it starts.
 *
 * <p>Threads: one Vert.x instance. The sync context (one event loop) runs the watch supervisor,
 * coalescer, reconciler and the table's single writer. fabric8's threads only hop onto it. The
 * servers run on other event loops and read the published table without locking.
 */
public final class Agent {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  /** A change unpublished for this long means the sync loop is wedged: liveness fails. */
  static final Duration STUCK_AFTER = Duration.ofSeconds(60);

  private static final Duration LIVENESS_TIMEOUT = Duration.ofSeconds(5);

  /** The API server's etcd check takes up to 2 s to fail (--etcd-readycheck-timeout). */
  private static final Duration STORAGE_PROBE_TIMEOUT = Duration.ofSeconds(5);

  /** At most this often, and at least twice per --relist-after: one small GET to the server. */
  private static final Duration STORAGE_PROBE_EVERY = Duration.ofSeconds(5);

  /** How often the Node is read again while the API server cannot answer. */
  private static final Duration ZONE_RETRY = Duration.ofSeconds(30);

  private final AgentConfig config;
  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final Metrics metrics;
  // Each Watch and ADS stream's sync state (GET /v1/clients) and the propagation latency.
  private final Sidecars sidecars = new Sidecars();
  private final TableWriter table;
  private final Readiness readiness = new Readiness();
  private final TableTrust trust = TableTrust.untrusted();
  // Whether the served table may be out of date, and when the API server was last heard from.
  private final Freshness freshness;
  private final Context syncContext;
  private final KubernetesClient client;
  // Whether the API server reaches etcd: its watches stay open and silent when it does not.
  private final StorageProbe storage;
  private long storageTimer = -1;
  private final Coalescer coalescer;
  // Where this node is (its name, and its zone from the Node's label or --zone): the topology
  // decisions are made for it.
  private final NodeTopology topology;
  private final ResourceWatch<?> supervisor;
  // The table's second input: the Services' declared ports (see ServicePorts); the drift
  // detector's too.
  private final ResourceWatch<Service> services;
  // Why the drift detector does not run; empty when it does.
  private final Optional<String> driftOff;
  private final ApiServer apiServer;
  private final Optional<AdminServer> adminServer;
  private final Optional<DebugServer> debugServer;
  // The Services restored at start (empty after a cold start) are recomputed by the first list,
  // so those gone while the agent was down are removed.
  private final List<ServiceKey> restoredKeys;
  // Completes once the first list is published and trusted (see initialSync()).
  private final Promise<Void> synced = Promise.promise();
  // Everything started after construction, and everything stopped, in the order of startAll().
  private final AgentParts parts = new AgentParts();

  /** The one stop, once asked for: later calls get the same future. */
  private Future<Void> stopping;

  /**
   * Builds the parts and registers them in {@link #parts}, each only when it is enabled; only the
   * socket's listen begins here (see below).
   *
   * @param loadingKubeConfig the credentials, still loading on another thread at a warm start (see
   *     {@link #start(AgentConfig)}); awaited before the socket listens, so that bad credentials
   *     stop the agent before it serves anything. Fails with a {@link BadConfigurationException}.
   */
  private Agent(AgentConfig config, CompletableFuture<Config> loadingKubeConfig) {
    this.config = config;
    // The accept hook, which also keeps the socket to --allow-uids/--allow-gids.
    ConnectionGuards guards = ConnectionGuards.create(config.peers());
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.metrics = new Metrics(registry);
    this.vertx =
        Vertx.builder()
            .with(new VertxOptions().setMetricsOptions(VertxMetrics.options()))
            .withMetrics(new MicrometerMetricsFactory(registry))
            .withTransport(guards.transport()) // native epoll when available, as before
            .build();
    vertx.exceptionHandler(new UnhandledExceptions(registry, System::nanoTime));
    Clock clock = Clock.systemUTC();
    long coldStartVersion = TimeUnit.MILLISECONDS.toMicros(clock.millis());
    // Before the first list: a table restored from the state file is served at once, stale.
    Optional<StateFile> stateFile = config.state().file().map(StateFile::new);
    Optional<WarmStart.Restored> restored =
        stateFile.flatMap(
            file ->
                WarmStart.load(
                    file,
                    clock.instant(),
                    coldStartVersion,
                    RoutingTable.DEFAULT_DELTA_LOG_CAPACITY,
                    metrics.state()));
    this.topology = NodeTopology.of(config.nodeName(), config.zone(), this::decideAgain);
    this.table =
        restored
            // Decisions are this node's, not the file's: made again, at the same version.
            .map(r -> new TableWriter(clock, r.table().decidedFor(topology.get())))
            .orElseGet(
                () ->
                    new TableWriter(
                        clock, RoutingTable.DEFAULT_DELTA_LOG_CAPACITY, coldStartVersion));
    this.restoredKeys =
        restored.stream()
            .flatMap(r -> r.table().services().stream())
            .map(ServiceEndpoints::key)
            .toList();
    metrics.bindTable(table);
    metrics.bindClients(sidecars);
    // The table's two watches (slices or Endpoints, and Services); assigned below, read later.
    this.freshness =
        new Freshness(trust, this::tableWatchesDisconnectedNanos, config.watch().relistAfter());
    metrics.bindFreshness(freshness);
    restored.ifPresent(
        r -> {
          trust.raise(TableTrust.Level.RESTORED);
          r.syncedAt().ifPresent(freshness::restored);
          readiness.tableRestored();
        });
    // Attached after the restored table's trust is raised: that table is already on disk. It is
    // the first part, so the last to stop: its final write comes after the listeners closed.
    parts.add(
        stateFile.map(
            file -> {
              StateWriter writer =
                  new StateWriter(
                      file, config.state().flush(), clock, freshness::syncedAt, metrics.state());
              writer.attach(table, trust);
              return AgentPart.running("state writer", () -> finalStateWrite(writer));
            }));
    this.syncContext = vertx.getOrCreateContext();
    LOG.info("starting routesync agent: {}", config.describe());
    Config kubeConfig = awaitKubeConfig(loadingKubeConfig);
    this.apiServer = apiServer(guards);
    // Serving starts here, before the Kubernetes client, the watches, the drift detector and the
    // admin listener are built (a restart is back for its sidecars that much sooner): the served
    // table needs none of them. It is the restored table, flagged stale (its trust is RESTORED
    // until the first list), or none: the API answers "not synced yet" until the first list.
    Future<Void> socketListening = listenOnSocket();
    this.client = KubeClients.create(vertx, kubeConfig, config.watch(), syncContext);
    this.storage = StorageProbe.of(client, STORAGE_PROBE_TIMEOUT);
    SkipReporter skips = new SkipReporter(metrics.skips(), System::nanoTime, 10, TimeUnit.SECONDS);
    this.driftOff = driftOffReason(config);
    Optional<EventRecorder> events =
        driftOff.isPresent() ? Optional.empty() : Optional.of(events(clock));
    Optional<DriftDetector> drift = events.map(recorder -> driftDetector(recorder, clock));
    Wiring<?> wiring =
        switch (config.source()) {
          case ENDPOINTSLICES -> wireSlices(skips, drift);
          case ENDPOINTS -> wire(new EndpointsKind(), skips, null, null);
        };
    this.coalescer = wiring.coalescer();
    // Until both table watches have synced: their first lists publish one version together.
    coalescer.hold();
    this.supervisor = wiring.supervisor();
    // The drift detector is the Services watch's second consumer.
    this.services =
        watchServices(
            wiring.servicePorts(),
            drift
                .map(d -> WatchSinks.tee(wiring.servicesSink(), d.services()))
                .orElse(wiring.servicesSink()));
    Optional<ResourceWatch<Pod>> driftPods = drift.map(d -> watchPods(d.pods()));
    apiServer.serveDrift(
        drift.<DriftView>map(d -> d).orElseGet(() -> DriftView.off(driftOff.get())));
    this.adminServer = adminServer(guards);
    this.debugServer = debugServer(guards);
    List<AgentPart> listeners = new ArrayList<>();
    listeners.add(
        AgentPart.of(
            "API socket",
            () -> socketListening,
            () -> apiServer.shutdown(config.shutdownTimeout())));
    adminServer.map(this::adminPart).ifPresent(listeners::add);
    debugServer.map(this::debugPart).ifPresent(listeners::add);
    parts
        .add(AgentPart.together("listeners", listeners))
        .add(events.map(e -> AgentPart.running("event recorder", () -> onSyncContext(e::close))))
        .add(watchPart("table watch", supervisor))
        .add(watchPart("Services watch", services))
        .add(driftPods.map(pods -> watchPart("Pods watch", pods)))
        .add(
            AgentPart.of(
                "storage probe",
                () -> {
                  storageTimer = vertx.setPeriodic(storageProbeEvery(), tick -> storage.probe());
                  return Future.succeededFuture();
                },
                () -> {
                  vertx.cancelTimer(storageTimer);
                  return Future.succeededFuture();
                }))
        .add(
            topology.needsLookup()
                // Its retries end by themselves once the agent is stopping.
                ? Optional.of(
                    AgentPart.of(
                        "zone lookup",
                        () -> {
                          lookUpZone();
                          return Future.succeededFuture();
                        },
                        Future::succeededFuture))
                : Optional.empty());
  }

  private record Wiring<T extends HasMetadata>(
      Coalescer coalescer,
      ResourceWatch<T> supervisor,
      ServicePorts servicePorts,
      WatchSink<Service> servicesSink) {}

  /**
   * The EndpointSlice watch: the table's, and the drift detector's when it runs. The detector keeps
   * a {@link NodeSlice} of each slice, which the informer's store makes for it (so that no decoded
   * slice is kept) and hands it at each relist.
   */
  private Wiring<EndpointSlice> wireSlices(SkipReporter skips, Optional<DriftDetector> drift) {
    if (drift.isEmpty()) {
      return wire(new EndpointSliceKind(), skips, null, null);
    }
    DriftDetector detector = drift.get();
    CompactForms<EndpointSlice, NodeSlice> forms = new CompactForms<>(detector::nodeSliceOf);
    return wire(new EndpointSliceKind(), skips, forms, detector.slices(forms::handOver));
  }

  /**
   * @param forms what {@code alsoTo} keeps of each object, made by the informer's store, or null
   * @param alsoTo a second consumer of the watch (the drift detector), or null
   */
  private <T extends HasMetadata> Wiring<T> wire(
      WatchedKind<T> kind, SkipReporter skips, CompactForms<T, ?> forms, WatchSink<T> alsoTo) {
    ServicePorts servicePorts = new ServicePorts();
    ServiceCache<T> cache =
        new ServiceCache<>(
            kind,
            skips,
            servicePorts::portsOf,
            servicePorts::trafficOf,
            topology,
            servicePorts::externalNameSkipOf);
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
    return new Wiring<>(
        newCoalescer,
        newSupervisor,
        servicePorts,
        new ServicePortsSink(servicePorts, newCoalescer));
  }

  /**
   * The Services watch: the slice watch's namespaces, selector and recovery, always on, since the
   * table needs the Services' declared ports to count ready endpoints per port.
   */
  private ResourceWatch<Service> watchServices(ServicePorts ports, WatchSink<Service> sink) {
    // Each Service kept compact, the served generation's instances reused by a relist.
    ResourceSpec<Service> spec = ServicePorts.spec(client, config.watch(), ports);
    return new ResourceWatch<>(
        spec,
        config.watch().recovery(),
        sink,
        syncContext,
        new VertxScheduler(vertx),
        new HeardObserver(metrics.watch(spec.kind()), freshness, Clock.systemUTC()),
        new Random(),
        storage::reachable);
  }

  /** Why the drift detector does not run; empty when it does. */
  private static Optional<String> driftOffReason(AgentConfig config) {
    if (!config.drift().enabled()) {
      return Optional.of("turned off (--drift-detector=false)");
    }
    if (config.nodeName().isEmpty()) {
      return Optional.of(
          "no node name (set --node-name or NODE_NAME, from the downward API's spec.nodeName)");
    }
    if (config.source() != Source.ENDPOINTSLICES) {
      return Optional.of(
          "--source endpoints: the detector needs EndpointSlices (their pod uids per port)");
    }
    return Optional.empty();
  }

  /** The drift detector's Kubernetes Events, written by a worker of their own from now on. */
  private EventRecorder events(Clock clock) {
    return EventRecorder.start(
        client,
        Reporter.onNode(Reporter.DRIFT_DETECTOR, config.nodeName()),
        EventRecorderSettings.defaults(),
        new VertxScheduler(vertx),
        clock,
        metrics.kubernetesEvents());
  }

  private DriftDetector driftDetector(EventRecorder events, Clock clock) {
    return new DriftDetector(
        config.nodeName(),
        config.drift().grace(),
        config.coalescer().debounce(),
        new VertxScheduler(vertx),
        clock,
        // Live clusters: sidecar ports resolve on 1.32+; an unresolved one on an older cluster is
        // then reported as NotInEndpoints after the grace, never as certain.
        PortSearch.CONTAINERS_AND_SIDECARS,
        metrics.drift(),
        new RecordedDriftEvents(events));
  }

  /** gRPC and HTTP on the socket (and --listen-tcp-insecure), xDS on the same listeners. */
  private ApiServer apiServer(ConnectionGuards guards) {
    ApiServer api =
        new ApiServer(
            vertx,
            table,
            freshness,
            metrics.serve(),
            readiness,
            config.socket(),
            config.listenTcp(),
            config.grpcReflection(),
            guards,
            config.limits());
    api.trackClientsIn(sidecars); // GET /v1/clients: Watch and ADS streams alike
    // xDS on the same listeners: proxyless gRPC clients and Envoy route with this table.
    api.serveXds(new XdsServer(vertx, table, trust, metrics.xds()));
    table.onPublish(api::published);
    return api;
  }

  private Future<Void> listenOnSocket() {
    return apiServer
        .listen()
        .onSuccess(
            ignored -> {
              readiness.socketListening(true);
              readiness.socketFileCheck(apiServer::socketFileProblem);
              LOG.info("serving gRPC and HTTP on unix:{}", apiServer.socketPath());
              if (apiServer.tcpPort() > 0) {
                LOG.warn(
                    "also serving on tcp port {}, to every local user (--listen-tcp-insecure)",
                    apiServer.tcpPort());
              }
            });
  }

  /** The probes and metrics listener; none with --admin-port 0. */
  private Optional<AdminServer> adminServer(ConnectionGuards guards) {
    if (config.adminPort() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        new AdminServer(
            vertx,
            config.adminHost(),
            config.adminPort(),
            readiness,
            this::liveness,
            () -> registry,
            guards,
            config.limits().forAdmin(),
            metrics.serve()));
  }

  private Optional<DebugServer> debugServer(ConnectionGuards guards) {
    if (!config.debug().enabled()) {
      return Optional.empty();
    }
    DebugServer debug =
        new DebugServer(
            vertx,
            config.debug().host(),
            config.debug().port(),
            apiServer.httpApi(),
            () -> registry,
            RecentLines.installed(),
            LogLevels.ofProcess(),
            guards,
            config.limits().forAdmin(),
            metrics.serve());
    debug.describeConfiguration(config, KubeconfigFacts.of(client.getConfiguration()));
    return Optional.of(debug);
  }

  /** A port that cannot be bound stops the agent: the probes need it. */
  private AgentPart adminPart(AdminServer admin) {
    return AgentPart.of(
        "admin listener",
        () ->
            admin
                .listen()
                .onSuccess(port -> LOG.info("admin on {}:{}", config.adminHost(), port))
                .recover(error -> Future.failedFuture(adminListenFailure(error)))
                .mapEmpty(),
        admin::close);
  }

  /**
   * The debug listener is an operator's aid: a port taken on the node is worth a warning, not an
   * agent that does not start.
   */
  private AgentPart debugPart(DebugServer debug) {
    String host = config.debug().host();
    return AgentPart.of(
        "debug listener",
        () ->
            debug
                .listen()
                .onSuccess(
                    port ->
                        LOG.info(
                            "debug listener on {}:{} (status page: http://{}:{}/status)",
                            host,
                            port,
                            host,
                            port))
                .<Void>mapEmpty()
                .recover(
                    error -> {
                      LOG.warn(
                          "debug listener not started on {}: {}; the agent runs without it",
                          ListenFailures.hostPort(host, config.debug().port()),
                          Reasons.of(error));
                      return Future.succeededFuture();
                    }),
        debug::close);
  }

  /**
   * A watch starts and stops on the sync context. Its start is not awaited: a watch whose first
   * list hangs must not hold up the agent's start (readiness waits for it instead).
   */
  private AgentPart watchPart(String name, ResourceWatch<?> watch) {
    return AgentPart.of(
        name,
        () -> {
          syncContext.runOnContext(v -> watch.start());
          return Future.succeededFuture();
        },
        () -> onSyncContext(watch::stop));
  }

  private Future<Void> onSyncContext(Runnable action) {
    Promise<Void> done = Promise.promise();
    syncContext.runOnContext(
        v -> {
          try {
            action.run();
            done.complete();
          } catch (RuntimeException e) {
            done.fail(e);
          }
        });
    return done.future();
  }

  /**
   * This node's pods ({@code fieldSelector spec.nodeName}, which the API server indexes), in the
   * agent's namespaces, with the slice watch's recovery.
   */
  private ResourceWatch<Pod> watchPods(WatchSink<Pod> sink) {
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
    return new ResourceWatch<>(
        spec,
        config.watch().recovery(),
        sink,
        syncContext,
        new VertxScheduler(vertx),
        metrics.watch(spec.kind()),
        new Random(),
        storage::reachable);
  }

  /** Starts an agent with credentials from the configuration. */
  public static Future<Agent> start(AgentConfig config) {
    // KUBECONFIG is checked as --kubeconfig is: fabric8 would skip a missing file silently.
    List<Path> kubeconfigs =
        config.kubeconfig().map(List::of).orElseGet(KubeClients::environmentKubeconfigs);
    // fabric8 parses the kubeconfig in a few hundred ms of a cold JVM: on a thread of its own,
    // while
    // this one restores the table and builds the servers (the constructor awaits it before
    // serving).
    CompletableFuture<Config> loading = new CompletableFuture<>();
    Thread loader =
        new Thread(
            () -> {
              try {
                loading.complete(loadKubeConfig(config, kubeconfigs));
              } catch (RuntimeException e) { // BadConfigurationException among them
                loading.completeExceptionally(e);
              }
            },
            "routesync-kubeconfig");
    loader.setDaemon(true);
    loader.start();
    return start(config, loading, kubeconfigs);
  }

  private static Config loadKubeConfig(AgentConfig config, List<Path> kubeconfigs)
      throws BadConfigurationException {
    try {
      if (config.kubeconfig().isEmpty()) {
        KubeClients.requireOneReadable(kubeconfigs);
      }
      return KubeClients.load(config.kubeconfig());
    } catch (IOException | RuntimeException e) {
      // Missing, unreadable or malformed: the operator's to fix, not a restart's (exit code 2).
      String source =
          config
              .kubeconfig()
              .map(path -> "--kubeconfig " + path)
              .orElse(
                  kubeconfigs.isEmpty()
                      ? "kubeconfig"
                      : "KUBECONFIG "
                          + String.join(
                              java.io.File.pathSeparator,
                              kubeconfigs.stream().map(Path::toString).toList()));
      throw new BadConfigurationException(source + ": " + Reasons.of(e), e);
    }
  }

  /** Starts an agent with explicit fabric8 credentials (tests, the demo). */
  public static Future<Agent> start(AgentConfig config, Config kubeConfig) {
    return start(
        config,
        CompletableFuture.completedFuture(kubeConfig),
        config.kubeconfig().stream().toList());
  }

  private static Future<Agent> start(
      AgentConfig config, CompletableFuture<Config> loadingKubeConfig, List<Path> kubeconfigs) {
    try {
      StateFileCheck.check(config, kubeconfigs); // before anything reads or writes the state file
    } catch (BadConfigurationException e) {
      // A bad kubeconfig is reported first, as when it was loaded before this check.
      return Future.failedFuture(kubeConfigFailure(loadingKubeConfig).orElse(e));
    }
    Agent agent;
    try {
      agent = new Agent(config, loadingKubeConfig);
    } catch (KubeConfigFailed e) {
      return Future.failedFuture(e.getCause());
    }
    return agent
        .startAll()
        .map(agent)
        .recover(error -> agent.stop().transform(ignored -> Future.failedFuture(error)));
  }

  /** The loaded credentials; a failed load closes Vert.x and throws {@link KubeConfigFailed}. */
  private Config awaitKubeConfig(CompletableFuture<Config> loading) {
    Optional<Throwable> failure = kubeConfigFailure(loading);
    if (failure.isPresent()) {
      // Nothing is listening or watching yet; the state writer (if any) has written nothing, and
      // its idle daemon thread goes with the process.
      vertx.close();
      throw new KubeConfigFailed(failure.get());
    }
    return loading.join();
  }

  private static Optional<Throwable> kubeConfigFailure(CompletableFuture<Config> loading) {
    try {
      loading.join();
      return Optional.empty();
    } catch (CompletionException e) {
      return Optional.of(e.getCause() == null ? e : e.getCause());
    }
  }

  /** Carries a failed kubeconfig load out of the constructor to {@link #start}. */
  private static final class KubeConfigFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    KubeConfigFailed(Throwable cause) {
      super(cause);
    }
  }

  /**
   * Starts the parts in order: the listeners (the socket's listen, begun in the constructor, and
   * the admin and debug listeners), the event recorder, the watches, the storage probe and the zone
   * lookup. The first lists are then published as one version and trusted.
   */
  private Future<Void> startAll() {
    driftOff.ifPresent(reason -> LOG.info("drift detector off: {}", reason));
    return parts
        .start()
        .onSuccess(
            ignored ->
                Future.all(supervisor.initialSync(), services.initialSync())
                    .onSuccess(
                        v ->
                            syncContext.runOnContext(
                                onSync -> {
                                  // Both watches' first lists, and every restored Service, as one
                                  // version; trusted right after it is published.
                                  coalescer.release(restoredKeys);
                                  trust.raise(TableTrust.Level.SYNCED);
                                  readiness.initialSyncDone();
                                  LOG.info("initial sync done: {}", table.current());
                                  synced.tryComplete();
                                })));
  }

  /**
   * Reads this node's zone from its Node (a blocking GET, on a worker), and again every {@link
   * #ZONE_RETRY} while the API server cannot answer.
   */
  private void lookUpZone() {
    vertx
        .executeBlocking(() -> NodeLabels.read(client, config.nodeName()), false)
        .onComplete(
            answer ->
                syncContext.runOnContext(
                    v -> {
                      boolean again = answer.succeeded() ? topology.learned(answer.result()) : true;
                      if (again && stopping == null) {
                        vertx.setTimer(ZONE_RETRY.toMillis(), t -> lookUpZone());
                      }
                    }));
  }

  /** The zone changed: every Service in the table is decided again, as one version. */
  private void decideAgain() {
    syncContext.runOnContext(
        v ->
            coalescer.flushAsOne(
                table.current().services().stream().map(ServiceEndpoints::key).toList()));
  }

  /** An outage of the server's storage shows within --relist-after plus one probe. */
  private long storageProbeEvery() {
    long half = config.watch().relistAfter().toMillis() / 2;
    return Math.max(100, Math.min(STORAGE_PROBE_EVERY.toMillis(), half));
  }

  private Throwable adminListenFailure(Throwable error) {
    if (error instanceof UnknownHostException) {
      return new BadConfigurationException(
          "--admin-host " + config.adminHost() + ": does not resolve (" + Reasons.of(error) + ")",
          error);
    }
    return ListenFailures.of(
        "admin", ListenFailures.hostPort(config.adminHost(), config.adminPort()), error);
  }

  private Future<LivenessVerdict> liveness() {
    Promise<LivenessVerdict> verdict = Promise.promise();
    syncContext.runOnContext(
        ignored -> {
          long waited = coalescer.oldestPendingAgeNanos();
          verdict.tryComplete(
              waited > STUCK_AFTER.toNanos()
                  ? LivenessVerdict.notAlive(
                      "a change has waited " + waited / 1_000_000_000 + "s unpublished")
                  : LivenessVerdict.ALIVE);
        });
    long timer =
        vertx.setTimer(
            LIVENESS_TIMEOUT.toMillis(),
            id ->
                verdict.tryComplete(
                    LivenessVerdict.notAlive(
                        "sync event loop did not answer within "
                            + Durations.format(LIVENESS_TIMEOUT))));
    return verdict.future().andThen(done -> vertx.cancelTimer(timer));
  }

  public TableView table() {
    return table;
  }

  /** Whether the served table may be out of date, and when the API server was last heard from. */
  public Freshness freshness() {
    return freshness;
  }

  // The longer outage of the table's two watches; 0 while both are up (or not built yet).
  private long tableWatchesDisconnectedNanos() {
    long slices = supervisor == null ? 0 : supervisor.disconnectedNanos();
    long ports = services == null ? 0 : services.disconnectedNanos();
    return Math.max(slices, ports);
  }

  /** Registers a listener called on the sync context after each published version. */
  public void onPublish(java.util.function.Consumer<RoutingTable> listener) {
    table.onPublish(listener);
  }

  public Readiness readiness() {
    return readiness;
  }

  /**
   * Completes once both watches (slices or Endpoints, and Services) have synced and their first
   * lists are published, as one version, and trusted: that version already carries the Services'
   * ports, and after a warm start it is the whole difference from the restored table. An agent that
   * cannot list Services (RBAC) stays unready, its watch logging why at each retry, rather than
   * publish counts it cannot know.
   */
  public Future<Void> initialSync() {
    return synced.future();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public Vertx vertx() {
    return vertx;
  }

  public AgentConfig config() {
    return config;
  }

  /** The debug listener's bound port, or -1 when it is off or not listening. */
  public int debugPort() {
    return debugServer.map(DebugServer::actualPort).orElse(-1);
  }

  /** The admin listener's bound port, or -1 when it is off. */
  public int adminPort() {
    return adminServer.map(AdminServer::actualPort).orElse(-1);
  }

  /** The API's listeners (the socket, and the loopback TCP port with --listen-tcp-insecure). */
  public ApiServer api() {
    return apiServer;
  }

  /**
   * Stops gracefully, within the configured shutdown timeout. Readiness and gRPC health fail at
   * once; then the parts stop in the reverse order of their start, each once the one after it has
   * stopped: the zone lookup and the storage probe; the watches (Pods, Services, the table's) and
   * the event recorder; then the listeners together: the socket's stops accepting, its HTTP/2
   * connections get GOAWAY, every Watch stream ends with status OK so sidecars reconnect, in-flight
   * calls complete, while the admin and debug listeners close; then the state file's final write.
   * Last, the Kubernetes client and Vert.x close. Safe to call more than once, from any thread:
   * every call gets the first call's future (a second drain would reach a Vert.x already closed).
   */
  public synchronized Future<Void> stop() {
    if (stopping == null) {
      stopping = drainAndClose();
    }
    return stopping;
  }

  /**
   * The served table once more, marked complete: nothing newer was served, since the listeners are
   * closed by now, so the next start continues its versions. Bounded by the shutdown timeout.
   */
  private Future<Void> finalStateWrite(StateWriter writer) {
    return Future.fromCompletionStage(writer.close())
        .timeout(config.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .otherwiseEmpty();
  }

  private Future<Void> drainAndClose() {
    readiness.draining();
    LOG.info("draining: up to {}", Durations.format(config.shutdownTimeout()));
    return parts
        .stop()
        .transform(
            ignored -> {
              client.close();
              return vertx.close();
            });
  }
}
