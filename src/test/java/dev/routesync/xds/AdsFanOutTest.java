package dev.routesync.xds;

import static dev.routesync.testing.AdsClient.CDS;
import static dev.routesync.testing.AdsClient.EDS;
import static dev.routesync.testing.AdsClient.LDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.routesync.testing.AdsClient;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import dev.routesync.testing.XdsAgent;
import dev.routesync.testing.XdsObjects;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fan-out the issue asks for: 1,000 Services and 100 ADS streams, each subscribed to every
 * Service's listener, cluster and assignment. One change to one Service produces exactly one EDS
 * message per stream, carrying that Service's assignment alone, and no LDS or CDS traffic.
 */
@Timeout(120)
class AdsFanOutTest {

  private static final Logger LOG = LoggerFactory.getLogger(AdsFanOutTest.class);

  private static final int SERVICES = 1000;
  private static final int STREAMS = 100;

  /** HTTP/2 connections the streams share (Vert.x allows 100 concurrent streams on each). */
  private static final int CONNECTIONS = 4;

  private static final Duration QUIET = Duration.ofSeconds(1);

  @TempDir Path dir;

  private MockCluster cluster;
  private TcpProxy proxy;
  private AgentHarness agent;
  private final List<GrpcJavaClient> connections = new ArrayList<>();
  private final List<AdsClient> streams = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    streams.forEach(AdsClient::close);
    for (GrpcJavaClient connection : connections) {
      connection.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (agent != null) {
      agent.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void oneChangedServiceIsOneEdsMessagePerStreamAndNothingElse() throws Exception {
    cluster = new MockCluster();
    proxy = new TcpProxy(cluster.port());
    long t0 = System.nanoTime();
    create(SERVICES);
    long created = System.nanoTime();
    agent = XdsAgent.start(proxy.url(), dir.resolve("rs.sock"), 0).cutOnClose(proxy);
    assertThat(agent.table().serviceCount()).isEqualTo(SERVICES);
    long synced = System.nanoTime();
    LOG.warn(
        "xDS fan-out: {} Services created in {} ms, agent synced in {} ms",
        SERVICES,
        millis(t0, created),
        millis(created, synced));

    List<String> listenerNames =
        IntStream.range(0, SERVICES).mapToObj(i -> name(i) + ".load:80").toList();
    List<String> clusterNames =
        IntStream.range(0, SERVICES).mapToObj(AdsFanOutTest::cluster).toList();
    for (int c = 0; c < CONNECTIONS; c++) {
      connections.add(new GrpcJavaClient(agent.socket()));
    }
    for (int s = 0; s < STREAMS; s++) {
      AdsClient ads =
          AdsClient.open(
              connections.get(s % CONNECTIONS).channel(), AdsClient.node("node-" + s, "zone-a"));
      streams.add(ads);
      ads.subscribe(LDS, listenerNames);
      ads.subscribe(CDS, clusterNames);
      ads.subscribe(EDS, clusterNames);
    }
    for (AdsClient ads : streams) {
      takeAll(
          ads, LDS, listenerNames, r -> AdsClient.resources(r, Listener.class), Listener::getName);
      takeAll(ads, CDS, clusterNames, r -> AdsClient.resources(r, Cluster.class), Cluster::getName);
      takeAll(
          ads,
          EDS,
          clusterNames,
          r -> AdsClient.resources(r, ClusterLoadAssignment.class),
          ClusterLoadAssignment::getClusterName);
    }
    long subscribed = System.nanoTime();
    awaitAllQuiet();

    String changed = cluster(SERVICES / 2);
    long changeAt = System.nanoTime();
    cluster.apply(slice(SERVICES / 2, 2));
    Awaitility.await("an EDS message on every stream")
        .atMost(Duration.ofSeconds(10))
        .until(() -> streams.stream().allMatch(ads -> ads.pending(EDS) >= 1));
    long pushed = System.nanoTime();
    awaitAllQuiet();
    for (AdsClient ads : streams) {
      assertThat(ads.pending(LDS)).as("LDS messages").isZero();
      assertThat(ads.pending(CDS)).as("CDS messages").isZero();
      assertThat(ads.pending(EDS)).as("EDS messages").isEqualTo(1);
      List<ClusterLoadAssignment> sent = AdsClient.assignments(ads.take(EDS));
      assertThat(sent).extracting(ClusterLoadAssignment::getClusterName).containsExactly(changed);
      assertThat(sent.get(0).getEndpointsList())
          .flatExtracting(l -> l.getLbEndpointsList())
          .hasSize(2);
    }
    LOG.warn(
        "xDS fan-out: {} streams x (LDS+CDS+EDS) x {} names subscribed and acknowledged in {} ms;"
            + " one change on every stream in {} ms",
        STREAMS,
        SERVICES,
        millis(synced, subscribed),
        millis(changeAt, pushed));
  }

  /** Takes and acknowledges responses of {@code type} until every one of {@code names} came. */
  private static <T extends Message> void takeAll(
      AdsClient ads,
      String type,
      List<String> names,
      Function<DiscoveryResponse, List<T>> resources,
      Function<T, String> name) {
    Set<String> seen = new HashSet<>();
    while (seen.size() < names.size()) {
      DiscoveryResponse response = ads.takeAndAck(type);
      resources.apply(response).forEach(r -> seen.add(name.apply(r)));
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(names);
  }

  /** No stream receives anything for {@link #QUIET}. */
  private void awaitAllQuiet() {
    Awaitility.await("all streams quiet")
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              int before = total();
              try {
                Awaitility.await()
                    .during(QUIET)
                    .atMost(QUIET.plusSeconds(1))
                    .until(() -> total() == before);
                return true;
              } catch (org.awaitility.core.ConditionTimeoutException e) {
                return false;
              }
            });
  }

  private int total() {
    return streams.stream().mapToInt(AdsClient::received).sum();
  }

  /**
   * {@code count} Services with one ready pod each, written by a few threads (the mock is slow).
   */
  private void create(int count) throws Exception {
    ExecutorService writers = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> writes = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int index = i;
        writes.add(
            writers.submit(
                () -> {
                  cluster.apply(
                      XdsObjects.service("load", name(index), XdsObjects.port("http", 80)));
                  cluster.apply(slice(index, 1));
                }));
      }
      for (Future<?> write : writes) {
        write.get(60, TimeUnit.SECONDS);
      }
    } finally {
      writers.shutdownNow();
    }
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice slice(
      int index, int pods) {
    List<Pod> list = new ArrayList<>();
    for (int p = 1; p <= pods; p++) {
      list.add(
          new Pod(
              name(index) + "-" + p,
              "10." + (100 + p) + "." + (index / 250) + "." + (index % 250 + 1),
              "node-a",
              "zone-a",
              Conditions.READY));
    }
    return XdsObjects.slice("load", name(index) + "-1", name(index), 8080, list);
  }

  private static String name(int index) {
    return String.format("svc-%04d", index);
  }

  private static String cluster(int index) {
    return name(index) + ".load.svc.cluster.local:80";
  }

  private static long millis(long from, long to) {
    return (to - from) / 1_000_000;
  }
}
