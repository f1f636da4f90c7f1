package dev.routesync;

import dev.routesync.config.AgentConfig;
import dev.routesync.config.StateFileCheck;
import dev.routesync.drift.DriftDetector;
import dev.routesync.drift.DriftView;
import dev.routesync.drift.NodeSlice;
import dev.routesync.kube.CompactForms;
import dev.routesync.kube.EndpointSliceKind;
import dev.routesync.kube.EndpointsKind;
import dev.routesync.kube.KubeClients;
import dev.routesync.kube.KubeconfigFacts;
import dev.routesync.kube.NodeTopology;
import dev.routesync.kube.SkipReporter;
import dev.routesync.kube.StorageProbe;
import dev.routesync.kube.events.EventRecorder;
import dev.routesync.kube.events.EventRecorderSettings;
import dev.routesync.kube.events.Reporter;
import dev.routesync.kube.watch.ResourceWatch;
import dev.routesync.kube.watch.WatchSinks;
import dev.routesync.observe.HeapBudget;
import dev.routesync.observe.Metrics;
import dev.routesync.observe.UnhandledExceptions;
import dev.routesync.observe.VertxMetrics;
import dev.routesync.serve.AdminServer;
import dev.routesync.serve.ApiServer;
import dev.routesync.serve.ApiServerOptions;
import dev.routesync.serve.ConnectionGuards;
import dev.routesync.serve.DebugServer;
import dev.routesync.serve.Readiness;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.state.StateFile;
import dev.routesync.state.StateWriter;
import dev.routesync.state.WarmStart;
import dev.routesync.sync.Coalescer;
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
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

  /** The API server's etcd check takes up to 2 s to fail (--etcd-readycheck-timeout). */
  private static final Duration STORAGE_PROBE_TIMEOUT = Duration.ofSeconds(5);

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
  private final Optional<StateWriter> stateWriter;
  // Whether the API server reaches etcd: its watches stay open and silent when it does not.
  private final StorageProbe storage;
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
  private Agent(AgentConfig config, KubeConfigLoading loadingKubeConfig) {
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
    this.stateWriter =
        stateFile.map(
            file -> {
              StateWriter writer =
                  new StateWriter(
                      file, config.state().flush(), clock, freshness::syncedAt, metrics.state());
              writer.attach(table, trust);
              return writer;
            });
    parts.add(
        stateWriter.map(
            writer -> AgentPart.running("state writer", () -> finalStateWrite(writer))));
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
    this.driftOff = DriftWiring.offReason(config);
    DriftWiring driftWiring = new DriftWiring(config, vertx, client, clock, metrics);
    Optional<EventRecorder> events =
        driftOff.isPresent() ? Optional.empty() : Optional.of(driftWiring.events());
    Optional<DriftDetector> drift = events.map(driftWiring::detector);
    WatchWiring watches =
        new WatchWiring(
            config,
            vertx,
            syncContext,
            client,
            storage,
            metrics,
            freshness,
            topology,
            table,
            sidecars);
    WatchWiring.Table<?> wiring =
        switch (config.source()) {
          case ENDPOINTSLICES -> wireSlices(watches, skips, drift);
          case ENDPOINTS -> watches.table(new EndpointsKind(), skips, null, null);
        };
    this.coalescer = wiring.coalescer();
    // Until both table watches have synced: their first lists publish one version together.
    coalescer.hold();
    this.supervisor = wiring.supervisor();
    // The drift detector is the Services watch's second consumer.
    this.services =
        watches.services(
            wiring.servicePorts(),
            drift
                .map(d -> WatchSinks.tee(wiring.servicesSink(), d.services()))
                .orElse(wiring.servicesSink()));
    Optional<ResourceWatch<Pod>> driftPods = drift.map(d -> watches.pods(d.pods()));
    apiServer.serveDrift(
        drift.<DriftView>map(d -> d).orElseGet(() -> DriftView.off(driftOff.get())));
    this.adminServer =
        ListenerParts.adminServer(
            config,
            vertx,
            guards,
            readiness,
            new SyncLiveness(vertx, syncContext, coalescer)::check,
            registry,
            metrics);
    this.debugServer =
        ListenerParts.debugServer(
            config,
            vertx,
            guards,
            apiServer.httpApi(),
            registry,
            metrics,
            () -> KubeconfigFacts.of(client.getConfiguration()));
    List<AgentPart> listeners = new ArrayList<>();
    listeners.add(
        AgentPart.of(
            "API socket",
            () -> socketListening,
            () -> apiServer.shutdown(config.shutdownTimeout())));
    adminServer.map(admin -> ListenerParts.admin(admin, config)).ifPresent(listeners::add);
    debugServer.map(debug -> ListenerParts.debug(debug, config)).ifPresent(listeners::add);
    parts
        .add(AgentPart.together("listeners", listeners))
        .add(events.map(e -> AgentPart.running("event recorder", () -> onSyncContext(e::close))))
        .add(watchPart("table watch", supervisor))
        .add(watchPart("Services watch", services))
        .add(driftPods.map(pods -> watchPart("Pods watch", pods)))
        .add(heapGuard(clock, driftPods))
        .add(new StorageProbing(vertx, storage, config.watch().relistAfter()))
        .add(
            topology.needsLookup()
                ? Optional.of(
                    new NodeZoneLookup(vertx, syncContext, client, config.nodeName(), topology))
                : Optional.empty());
  }

  /**
   * Parks every watch when the heap budget is spent (see {@link HeapGuard}); none on a JVM whose
   * collector reports no old generation.
   */
  private Optional<AgentPart> heapGuard(Clock clock, Optional<ResourceWatch<Pod>> driftPods) {
    List<ResourceWatch<?>> watches = new ArrayList<>(List.of(supervisor, services));
    driftPods.ifPresent(watches::add);
    return HeapBudget.of(HeapBudget.DEFAULT_SHARE)
        .map(
            budget ->
                new HeapGuard(
                    budget,
                    vertx,
                    syncContext,
                    watches,
                    readiness,
                    metrics,
                    () ->
                        config.nodeName().isEmpty()
                            ? Optional.empty()
                            : Optional.of(
                                EventRecorder.start(
                                    client,
                                    Reporter.onNode(Reporter.AGENT, config.nodeName()),
                                    EventRecorderSettings.defaults(),
                                    new VertxScheduler(vertx),
                                    clock,
                                    metrics.kubernetesEvents())),
                    config.nodeName(),
                    HeapGuard.RESUME_AFTER));
  }

  /**
   * The EndpointSlice watch: the table's, and the drift detector's when it runs. The detector keeps
   * a {@link NodeSlice} of each slice, which the informer's store makes for it (so that no decoded
   * slice is kept) and hands it at each relist.
   */
  private WatchWiring.Table<EndpointSlice> wireSlices(
      WatchWiring watches, SkipReporter skips, Optional<DriftDetector> drift) {
    if (drift.isEmpty()) {
      return watches.table(new EndpointSliceKind(), skips, null, null);
    }
    DriftDetector detector = drift.get();
    CompactForms<EndpointSlice, NodeSlice> forms = new CompactForms<>(detector::nodeSliceOf);
    return watches.table(new EndpointSliceKind(), skips, forms, detector.slices(forms::handOver));
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
            ApiServerOptions.onSocket(config.socket())
                .withTcpAddress(config.listenTcp())
                .withReflection(config.grpcReflection())
                .withLimits(guards, config.limits()));
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
    return AgentPart.on(syncContext, action);
  }

  /** Starts an agent with credentials from the configuration. */
  public static Future<Agent> start(AgentConfig config) {
    return start(config, KubeConfigLoading.begin(config));
  }

  /** Starts an agent with explicit fabric8 credentials (tests, the demo). */
  public static Future<Agent> start(AgentConfig config, Config kubeConfig) {
    return start(config, KubeConfigLoading.loaded(config, kubeConfig));
  }

  private static Future<Agent> start(AgentConfig config, KubeConfigLoading kubeConfig) {
    try {
      // Before anything reads or writes the state file.
      StateFileCheck.check(config, kubeConfig.kubeconfigs());
    } catch (BadConfigurationException e) {
      // A bad kubeconfig is reported first, as when it was loaded before this check.
      return Future.failedFuture(kubeConfig.failure().orElse(e));
    }
    Agent agent;
    try {
      agent = new Agent(config, kubeConfig);
    } catch (KubeConfigFailed e) {
      return Future.failedFuture(e.getCause());
    }
    return agent
        .startAll()
        .map(agent)
        .recover(error -> agent.stop().transform(ignored -> Future.failedFuture(error)));
  }

  /** The loaded credentials; a failed load closes Vert.x and throws {@link KubeConfigFailed}. */
  private Config awaitKubeConfig(KubeConfigLoading loading) {
    Optional<Throwable> failure = loading.failure();
    if (failure.isPresent()) {
      // Nothing is listening or watching yet; the state writer (if any) has written nothing, and
      // its idle daemon thread goes with the process.
      vertx.close();
      throw new KubeConfigFailed(failure.get());
    }
    return loading.config();
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

  /** The zone changed: every Service in the table is decided again, as one version. */
  private void decideAgain() {
    syncContext.runOnContext(
        v ->
            coalescer.flushAsOne(
                table.current().services().stream().map(ServiceEndpoints::key).toList()));
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

  /**
   * Stops the agent as SIGKILL would, as far as one JVM can: Vert.x (event loops, servers,
   * connections) closed at once with no drain, the fabric8 client's threads ended, and the state
   * writer's thread stopped with nothing more written. For crash-recovery tests; an agent is
   * stopped with {@link #stop}.
   */
  public void crash() throws InterruptedException, java.util.concurrent.TimeoutException {
    vertx.close().await(20, TimeUnit.SECONDS);
    client.close();
    if (stateWriter.isPresent()) {
      stateWriter.get().halt();
    }
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
