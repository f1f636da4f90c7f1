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
  private final ConnectionGuards guards;
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
  // The drift detector and its Pods watch; null when it is off (driftOff says why).
  private final DriftDetector drift;
  private final String driftOff;
  private final ResourceWatch<Pod> driftPods;
  private final EventRecorder events;
  private final ApiServer apiServer;
  // The socket's listen, begun in the constructor before the Kubernetes side is built (see there).
  private final Future<Void> socketListening;
  private final AdminServer adminServer;
  private final DebugServer debugServer;
  // Persistence: null with --state-file "". The Services restored at start (empty after a cold
  // start) are recomputed by the first list, so those gone while the agent was down are removed.
  private final StateWriter stateWriter;
  private final List<ServiceKey> restoredKeys;
  // Completes once the first list is published and trusted (see initialSync()).
  private final Promise<Void> synced = Promise.promise();

  /** The one stop, once asked for: later calls get the same future. */
  private Future<Void> stopping;

  /**
   * @param loadingKubeConfig the credentials, still loading on another thread at a warm start (see
   *     {@link #start(AgentConfig)}); awaited before the socket listens, so that bad credentials
   *     stop the agent before it serves anything. Fails with a {@link BadConfigurationException}.
   */
  private Agent(AgentConfig config, CompletableFuture<Config> loadingKubeConfig) {
    this.config = config;
    // The accept hook, which also keeps the socket to --allow-uids/--allow-gids.
    this.guards = ConnectionGuards.create(config.peers());
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
    StateFile stateFile = config.state().file().map(StateFile::new).orElse(null);
    Optional<WarmStart.Restored> restored =
        stateFile == null
            ? Optional.empty()
            : WarmStart.load(
                stateFile,
                clock.instant(),
                coldStartVersion,
                RoutingTable.DEFAULT_DELTA_LOG_CAPACITY,
                metrics.state());
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
    // Attached after the restored table's trust is raised: that table is already on disk.
    this.stateWriter =
        stateFile == null
            ? null
            : new StateWriter(
                stateFile, config.state().flush(), clock, freshness::syncedAt, metrics.state());
    if (stateWriter != null) {
      stateWriter.attach(table, trust);
    }
    this.syncContext = vertx.getOrCreateContext();
    LOG.info("starting routesync agent: {}", config.describe());
    Config kubeConfig = awaitKubeConfig(loadingKubeConfig);
    this.apiServer =
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
    apiServer.trackClientsIn(sidecars); // GET /v1/clients: Watch and ADS streams alike
    // xDS on the same listeners: proxyless gRPC clients and Envoy route with this table.
    apiServer.serveXds(new XdsServer(vertx, table, trust, metrics.xds()));
    table.onPublish(apiServer::published);
    // Serving starts here, before the Kubernetes client, the watches, the drift detector and the
    // admin listener are built (a restart is back for its sidecars that much sooner): the served
    // table needs none of them. It is the restored table, flagged stale (its trust is RESTORED
    // until the first list), or none: the API answers "not synced yet" until the first list.
    this.socketListening =
        apiServer
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
    this.client = KubeClients.create(vertx, kubeConfig, config.watch(), syncContext);
    this.storage = StorageProbe.of(client, STORAGE_PROBE_TIMEOUT);
    SkipReporter skips = new SkipReporter(metrics.skips(), System::nanoTime, 10, TimeUnit.SECONDS);
    this.driftOff = driftOffReason(config);
    this.events =
        driftOff != null
            ? null
            : EventRecorder.start(
                client,
                Reporter.onNode(Reporter.DRIFT_DETECTOR, config.nodeName()),
                EventRecorderSettings.defaults(),
                new VertxScheduler(vertx),
                clock,
                metrics.kubernetesEvents());
    this.drift =
        driftOff != null
            ? null
            : new DriftDetector(
                config.nodeName(),
                config.drift().grace(),
                config.coalescer().debounce(),
                new VertxScheduler(vertx),
                clock,
                // Live clusters: sidecar ports resolve on 1.32+; an unresolved one on an older
                // cluster is then reported as NotInEndpoints after the grace, never as certain.
                PortSearch.CONTAINERS_AND_SIDECARS,
                metrics.drift(),
                new RecordedDriftEvents(events));
    Wiring<?> wiring =
        switch (config.source()) {
          case ENDPOINTSLICES -> wireSlices(skips);
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
            drift == null
                ? wiring.servicesSink()
                : WatchSinks.tee(wiring.servicesSink(), drift.services()));
    this.driftPods = drift == null ? null : watchPods(drift.pods());
    DriftView driftView = drift == null ? DriftView.off(driftOff) : drift;
    apiServer.serveDrift(driftView);
    this.adminServer =
        config.adminPort() == 0
            ? null
            : new AdminServer(
                vertx,
                config.adminHost(),
                config.adminPort(),
                readiness,
                this::liveness,
                () -> registry,
                guards,
                config.limits().forAdmin(),
                metrics.serve());
    this.debugServer =
        config.debug().enabled()
            ? new DebugServer(
                vertx,
                config.debug().host(),
                config.debug().port(),
                apiServer.httpApi(),
                () -> registry,
                RecentLines.installed(),
                LogLevels.ofProcess(),
                guards,
                config.limits().forAdmin(),
                metrics.serve())
            : null;
    if (debugServer != null) {
      debugServer.describeConfiguration(config, KubeconfigFacts.of(client.getConfiguration()));
    }
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
  private Wiring<EndpointSlice> wireSlices(SkipReporter skips) {
    if (drift == null) {
      return wire(new EndpointSliceKind(), skips, null, null);
    }
    CompactForms<EndpointSlice, NodeSlice> forms = new CompactForms<>(drift::nodeSliceOf);
    return wire(new EndpointSliceKind(), skips, forms, drift.slices(forms::handOver));
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

  /** Why the drift detector does not run, or null when it does. */
  private static String driftOffReason(AgentConfig config) {
    if (!config.drift().enabled()) {
      return "turned off (--drift-detector=false)";
    }
    if (config.nodeName().isEmpty()) {
      return "no node name (set --node-name or NODE_NAME, from the downward API's spec.nodeName)";
    }
    if (config.source() != Source.ENDPOINTSLICES) {
      return "--source endpoints: the detector needs EndpointSlices (their pod uids per port)";
    }
    return null;
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

  private Future<Void> startAll() {
    if (drift == null) {
      LOG.info("drift detector off: {}", driftOff);
    }
    Future<Void> socket = socketListening;
    Future<Void> admin =
        adminServer == null
            ? Future.succeededFuture()
            : adminServer
                .listen()
                .onSuccess(port -> LOG.info("admin on {}:{}", config.adminHost(), port))
                .recover(error -> Future.failedFuture(adminListenFailure(error)))
                .mapEmpty();
    // The debug listener is an operator's aid: a port taken on the node is worth a warning, not
    // an agent that does not start.
    Future<Void> debug =
        debugServer == null
            ? Future.succeededFuture()
            : debugServer
                .listen()
                .onSuccess(
                    port ->
                        LOG.info(
                            "debug listener on {}:{} (status page: http://{}:{}/status)",
                            config.debug().host(),
                            port,
                            config.debug().host(),
                            port))
                .<Void>mapEmpty()
                .recover(
                    error -> {
                      LOG.warn(
                          "debug listener not started on {}: {}; the agent runs without it",
                          ListenFailures.hostPort(config.debug().host(), config.debug().port()),
                          Reasons.of(error));
                      return Future.succeededFuture();
                    });
    return Future.all(socket, admin, debug)
        .<Void>mapEmpty()
        .onSuccess(
            ignored -> {
              syncContext.runOnContext(
                  v -> {
                    supervisor.start();
                    services.start();
                    if (drift != null) {
                      driftPods.start();
                    }
                  });
              storageTimer = vertx.setPeriodic(storageProbeEvery(), tick -> storage.probe());
              if (topology.needsLookup()) {
                lookUpZone();
              }
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
                              }));
            });
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

  private Future<String> liveness() {
    Promise<String> verdict = Promise.promise();
    syncContext.runOnContext(
        ignored -> {
          long waited = coalescer.oldestPendingAgeNanos();
          verdict.tryComplete(
              waited > STUCK_AFTER.toNanos()
                  ? "a change has waited " + waited / 1_000_000_000 + "s unpublished"
                  : "");
        });
    long timer =
        vertx.setTimer(
            LIVENESS_TIMEOUT.toMillis(),
            id -> verdict.tryComplete("sync event loop did not answer within 5s"));
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

  /** The drift detector's latest snapshot (off, with the reason, when it does not run). */
  public DriftView drift() {
    return drift == null ? DriftView.off(driftOff) : drift;
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

  /** The admin listener's bound port, or -1 when it is off. */
  /** The debug listener's bound port, or -1 when it is off or not listening. */
  public int debugPort() {
    return debugServer == null ? -1 : debugServer.actualPort();
  }

  public int adminPort() {
    return adminServer == null ? -1 : adminServer.actualPort();
  }

  /** The loopback TCP port of the API, or -1 when it only serves the socket. */
  public int apiTcpPort() {
    return apiServer.tcpPort();
  }

  /** Watch streams open right now. */
  public int watchStreams() {
    return apiServer.watchStreams();
  }

  /**
   * Stops gracefully, within the configured shutdown timeout: readiness and gRPC health fail at
   * once; the listeners stop accepting; HTTP/2 connections get GOAWAY; every Watch stream ends with
   * status OK so sidecars reconnect; in-flight calls complete; then the watches stop and Vert.x
   * shuts down. Safe to call more than once, from any thread: every call gets the first call's
   * future (a second drain would reach a Vert.x already closed).
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
  private Future<Void> finalStateWrite() {
    if (stateWriter == null) {
      return Future.succeededFuture();
    }
    return Future.fromCompletionStage(stateWriter.close())
        .timeout(config.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .otherwiseEmpty();
  }

  private Future<Void> drainAndClose() {
    readiness.draining();
    LOG.info("draining: up to {}", Durations.format(config.shutdownTimeout()));
    Promise<Void> watchesStopped = Promise.promise();
    syncContext.runOnContext(
        ignored -> {
          vertx.cancelTimer(storageTimer);
          supervisor.stop();
          services.stop();
          if (drift != null) {
            driftPods.stop();
            events.close();
          }
          watchesStopped.complete();
        });
    Future<Void> admin = adminServer == null ? Future.succeededFuture() : adminServer.close();
    Future<Void> debug = debugServer == null ? Future.succeededFuture() : debugServer.close();
    return Future.join(apiServer.shutdown(config.shutdownTimeout()), watchesStopped.future())
        .transform(ignored -> Future.join(admin, debug))
        .transform(ignored -> finalStateWrite())
        .transform(
            ignored -> {
              client.close();
              return vertx.close();
            });
  }
}
