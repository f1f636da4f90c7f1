package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.observe.Metrics;
import dev.routesync.testing.RawConnection;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Clients that hold the admin port's connections open with keep-alive (one {@code GET /healthz} a
 * minute is enough to stay under the idle timeout) cannot shut kubelet's probes out: a fresh probe
 * still gets its 200 within a second, from another address or from the holders' own.
 */
@Timeout(60)
class AdminFloodTest {

  private static final String KEEP_ALIVE = "GET /healthz HTTP/1.1\r\nHost: agent\r\n\r\n";
  private static final String PROBE =
      "GET /healthz HTTP/1.1\r\nHost: agent\r\nConnection: close\r\n\r\n";
  private static final Duration PROBE_WITHIN = Duration.ofSeconds(1);
  private static final int CAP = ConnectionLimits.ADMIN_MAX_CONNECTIONS;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<RawConnection> held = new ArrayList<>();
  private Vertx vertx;
  private AdminServer server;
  private int port;

  @BeforeEach
  void start() throws Exception {
    ConnectionGuards guards = ConnectionGuards.create();
    vertx = Vertx.builder().withTransport(guards.transport()).build();
    server =
        new AdminServer(
            vertx,
            "127.0.0.1",
            0,
            new Readiness(),
            () -> Future.succeededFuture(LivenessVerdict.ALIVE),
            () -> registry,
            guards,
            ConnectionLimits.DEFAULT.forAdmin(),
            new Metrics(registry).serve());
    port = server.listen().await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    for (RawConnection connection : held) {
      connection.close();
    }
    server.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aProbeIsAnsweredWhileKeptAliveConnectionsFromManyAddressesFillTheCap() throws Exception {
    // Eight addresses, as eight pods would be, each holding its share of the cap, all answered.
    for (int i = 0; i < CAP; i++) {
      hold("127.0.0." + (2 + i % 8));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> open() == CAP);

    assertThat(probeFrom("127.0.0.1")).startsWith("HTTP/1.1 200 ");
    assertThat(probeFrom("127.0.0.1")).startsWith("HTTP/1.1 200 ");
    // The first probe took the place of the connection idle the longest (the second may find
    // the first's slot free, once the agent has seen it close).
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                registry
                        .get("routesync.connections.closed")
                        .tag("listener", "admin")
                        .tag("reason", "evicted")
                        .counter()
                        .count()
                    >= 1);
  }

  @Test
  void aProbeIsAnsweredWhileOneAddressOpensTheWholeCap() throws Exception {
    for (int i = 0; i < CAP; i++) {
      holdOrRefused("127.0.0.2");
    }
    // From another address, and from the holder's own (kubelet shares the node's address with
    // every host-network process).
    assertThat(probeFrom("127.0.0.1")).startsWith("HTTP/1.1 200 ");
    assertThat(probeFrom("127.0.0.2")).startsWith("HTTP/1.1 200 ");
    assertThat(open()).isLessThanOrEqualTo(ConnectionLimits.ADMIN_MAX_PER_SOURCE + 1);
  }

  @Test
  void driftIsNotServedOnTheAdminPort() throws Exception {
    try (RawConnection connection = RawConnection.tcp(port)) {
      String answer =
          connection
              .write("GET /v1/drift HTTP/1.1\r\nHost: agent\r\nConnection: close\r\n\r\n")
              .readToEnd(Duration.ofSeconds(5));
      assertThat(answer).startsWith("HTTP/1.1 404 ");
    }
  }

  /** One keep-alive connection from {@code source}, its first request answered. */
  private void hold(String source) throws IOException {
    RawConnection connection = RawConnection.tcpFrom(source, port);
    held.add(connection);
    assertThat(connection.write(KEEP_ALIVE).readUntilAnswered(Duration.ofSeconds(5)))
        .startsWith("HTTP/1.1 200 ");
  }

  /** As {@link #hold}, but the agent may refuse or close it: the test only keeps trying. */
  private void holdOrRefused(String source) throws IOException {
    RawConnection connection = RawConnection.tcpFrom(source, port);
    held.add(connection);
    try {
      connection.write(KEEP_ALIVE).readUntilAnswered(Duration.ofSeconds(5));
    } catch (IOException closed) {
      // Refused at accept, or evicted: what the holder gets, not a failure of the test.
    }
  }

  private String probeFrom(String source) throws IOException {
    long start = System.nanoTime();
    try (RawConnection probe = RawConnection.tcpFrom(source, port)) {
      String answer;
      try {
        answer = probe.write(PROBE).readToEnd(PROBE_WITHIN);
      } catch (IOException e) {
        answer = "no answer: " + e.getMessage();
      }
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("probe from %s: %s", source, answer)
          .isLessThan(PROBE_WITHIN.plusMillis(100));
      return answer;
    }
  }

  private double open() {
    return registry.get("routesync.connections.open").tag("listener", "admin").gauge().value();
  }
}
