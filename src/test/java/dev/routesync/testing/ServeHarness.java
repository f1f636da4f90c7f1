package dev.routesync.testing;

import static dev.routesync.testing.TableStates.states;

import dev.routesync.observe.Metrics;
import dev.routesync.serve.ApiServer;
import dev.routesync.serve.ApiServerOptions;
import dev.routesync.serve.ConnectionGuards;
import dev.routesync.serve.ConnectionLimits;
import dev.routesync.serve.Readiness;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Freshness;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.xds.XdsLimits;
import dev.routesync.xds.XdsServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The serving side alone: an {@link ApiServer} on a temporary socket over a table the test writes
 * directly (the test thread is the single writer), for rates no API server mock could feed.
 */
public final class ServeHarness implements AutoCloseable {

  private final Vertx vertx;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Metrics metrics = new Metrics(registry);
  private final TableWriter table = new TableWriter(Clock.systemUTC(), 1024);
  private final Readiness readiness = new Readiness();
  private final TableTrust trust;
  private final Freshness freshness;
  private final Path dir;
  private final ApiServer server;

  /** Serving a table trusted from the start: every version the test publishes is served. */
  public ServeHarness() throws Exception {
    this(TableTrust.synced(), ConnectionLimits.DEFAULT);
  }

  /** With the socket's connection cap and timeouts set to {@code limits}. */
  public ServeHarness(ConnectionLimits limits) throws Exception {
    this(TableTrust.synced(), limits);
  }

  /**
   * With these guards (a peer policy, a transport), which build the harness's Vert.x. Does not
   * listen: call {@link #listen()}, which may fail (a policy the transport cannot enforce).
   */
  public ServeHarness(ConnectionGuards guards) throws Exception {
    this(TableTrust.synced(), ConnectionLimits.DEFAULT, guards, Optional.empty());
  }

  /** As above, also on this loopback TCP address; does not listen either. */
  public ServeHarness(ConnectionGuards guards, InetSocketAddress tcp) throws Exception {
    this(TableTrust.synced(), ConnectionLimits.DEFAULT, guards, Optional.of(tcp));
  }

  /** With the xDS server's memory limits set to {@code xds}. */
  public static ServeHarness withXdsLimits(XdsLimits xds) throws Exception {
    ServeHarness harness =
        new ServeHarness(
            Freshness.unwatched(TableTrust.synced()),
            ConnectionLimits.DEFAULT,
            ConnectionGuards.create(),
            Optional.empty(),
            xds);
    harness.listen().await(10, TimeUnit.SECONDS);
    return harness;
  }

  /** With {@code limits} and these guards (a peer policy, a peer-credential source), listening. */
  public ServeHarness(ConnectionLimits limits, ConnectionGuards guards) throws Exception {
    this(TableTrust.synced(), limits, guards, Optional.empty());
    listen().await(10, TimeUnit.SECONDS);
  }

  /** Serving nothing until {@link #markSynced}, as an agent before its first list. */
  public static ServeHarness unsynced() throws Exception {
    return new ServeHarness(TableTrust.untrusted(), ConnectionLimits.DEFAULT);
  }

  /**
   * Serving with the freshness a test steers, as the agent's watches would: {@code trust} (raise it
   * to serve), how long the watches have been down, and {@link #freshness()}{@code .heard(...)}.
   */
  public static ServeHarness watched(
      TableTrust trust, LongSupplier disconnectedNanos, Duration relistAfter) throws Exception {
    return new ServeHarness(
        new Freshness(trust, disconnectedNanos, relistAfter), ConnectionLimits.DEFAULT);
  }

  private ServeHarness(TableTrust trust, ConnectionLimits limits) throws Exception {
    this(Freshness.unwatched(trust), limits);
  }

  private ServeHarness(Freshness freshness, ConnectionLimits limits) throws Exception {
    this(freshness, limits, ConnectionGuards.create(), Optional.empty());
    listen().await(10, TimeUnit.SECONDS);
  }

  private ServeHarness(
      TableTrust trust,
      ConnectionLimits limits,
      ConnectionGuards guards,
      Optional<InetSocketAddress> tcp)
      throws Exception {
    this(Freshness.unwatched(trust), limits, guards, tcp);
  }

  private ServeHarness(
      Freshness freshness,
      ConnectionLimits limits,
      ConnectionGuards guards,
      Optional<InetSocketAddress> tcp)
      throws Exception {
    this(freshness, limits, guards, tcp, XdsLimits.ofThisHeap());
  }

  private ServeHarness(
      Freshness freshness,
      ConnectionLimits limits,
      ConnectionGuards guards,
      Optional<InetSocketAddress> tcp,
      XdsLimits xds)
      throws Exception {
    this.trust = freshness.trust();
    this.freshness = freshness;
    this.vertx = Vertx.builder().withTransport(guards.transport()).build();
    dir = Files.createTempDirectory("serve");
    server =
        new ApiServer(
            vertx,
            table,
            freshness,
            metrics.serve(),
            readiness,
            ApiServerOptions.onSocket(dir.resolve("api.sock"))
                .withTcpAddress(tcp)
                .withLimits(guards, limits));
    // As the agent does: xDS on the same listeners.
    server.serveXds(new XdsServer(vertx, table, trust, metrics.xds(), xds));
    table.onPublish(server::published);
  }

  /** Listens on the socket (and TCP, if given); the harness is then ready. */
  public Future<Void> listen() {
    return server
        .listen()
        .onSuccess(
            ignored -> {
              readiness.socketListening(true);
              readiness.initialSyncDone();
            });
  }

  /** What the agent does once its initial sync is published. */
  public void markSynced() {
    trust.raise(TableTrust.Level.SYNCED);
  }

  /** What the served answers say about staleness; {@code heard(...)} as a watch would. */
  public Freshness freshness() {
    return freshness;
  }

  public Path socket() {
    return dir.resolve("api.sock");
  }

  public ApiServer server() {
    return server;
  }

  public Readiness readiness() {
    return readiness;
  }

  public SimpleMeterRegistry registry() {
    return registry;
  }

  public RoutingTable table() {
    return table.current();
  }

  /** Publishes {@code service} with {@code count} endpoints (10.0.x.y). */
  public RoutingTable put(String namespace, String name, int count) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      endpoints.add(
          new Endpoint(
              "10.0." + (i / 250) + "." + (i % 250 + 1),
              List.of(new Port("http", 8080, "TCP")),
              "zone-a",
              "node-a",
              name + "-" + i,
              true,
              true,
              false));
    }
    return put(namespace, name, endpoints);
  }

  /** Publishes {@code service} with exactly these endpoints. */
  public RoutingTable put(String namespace, String name, List<Endpoint> endpoints) {
    return table.publish(states(Map.of(new ServiceKey(namespace, name), endpoints)), List.of());
  }

  /** Publishes {@code service} with these endpoints and the ports its Service declares. */
  public RoutingTable put(String namespace, String name, ServiceState state) {
    return table.publish(Map.of(new ServiceKey(namespace, name), state), List.of());
  }

  /** Publishes every one of {@code states} in one version. */
  public RoutingTable putAll(Map<ServiceKey, ServiceState> states) {
    return table.publish(states, List.of());
  }

  public RoutingTable remove(String namespace, String name) {
    return table.publish(Map.of(), List.of(new ServiceKey(namespace, name)));
  }

  public double counter(String name, String... tags) {
    var counter = registry.find(name).tags(tags).counter();
    return counter == null ? 0 : counter.count();
  }

  public void shutdown(Duration timeout) throws Exception {
    server.shutdown(timeout).await(timeout.toMillis() + 5000, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() throws Exception {
    server.shutdown(Duration.ZERO).await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
    }
    Files.deleteIfExists(dir);
  }
}
