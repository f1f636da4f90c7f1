package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.observe.UidConnections;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.SetprivClient;
import io.micrometer.core.instrument.Gauge;
import io.vertx.core.transport.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The socket's second line of defence: the kernel's peer credentials ({@code SO_PEERCRED}) of each
 * connection, read at accept, counted by uid with a bounded label set, and checked against {@code
 * --allow-uids} / {@code --allow-gids}. Tests marked "root" run real clients under other uids
 * through {@code setpriv} and skip, saying why, elsewhere.
 */
class PeerCredentialsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String REQUEST =
      "GET /v1/services HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  private static final int OTHER_UID = 4242;
  private static final int STRANGER_UID = 4343;

  private static final int OWN_UID = SetprivClient.ownUid();
  private static final int OWN_GID = SetprivClient.ownGid();

  @Test
  void connectionsFromTheAgentsOwnUidPassAndAreCountedByUid() throws Exception {
    try (ServeHarness serve = listening(PeerPolicy.ANY)) {
      try (RawConnection connection = RawConnection.unix(serve.socket())) {
        assertThat(connection.write(REQUEST).readToEnd(WAIT)).startsWith("HTTP/1.1 200 ");
      }
      await().atMost(WAIT).until(() -> byUid(serve, String.valueOf(OWN_UID)) == 0);
      try (RawConnection held = RawConnection.unix(serve.socket())) {
        await().atMost(WAIT).until(() -> byUid(serve, String.valueOf(OWN_UID)) == 1);
      }
      await().atMost(WAIT).until(() -> byUid(serve, String.valueOf(OWN_UID)) == 0);
      assertThat(refused(serve)).isZero();
    }
  }

  @Test
  void theAgentsOwnUidAndGidPassWhenTheyAreTheOnesAllowed() throws Exception {
    try (ServeHarness serve = listening(PeerPolicy.of(List.of(OWN_UID), List.of(OWN_GID)));
        RawConnection connection = RawConnection.unix(serve.socket())) {
      assertThat(connection.write(REQUEST).readToEnd(WAIT)).startsWith("HTTP/1.1 200 ");
      assertThat(refused(serve)).isZero();
    }
  }

  @Test
  void withAnotherUidAllowedAConnectionIsClosedAtOnceWithoutAnAnswerAndCounted() throws Exception {
    try (ServeHarness serve = listening(PeerPolicy.of(List.of(OWN_UID + OTHER_UID), List.of()))) {
      try (RawConnection connection = RawConnection.unix(serve.socket())) {
        assertThat(sendAndReadAll(connection)).isEmpty();
      }
      try (RawConnection silent = RawConnection.unix(serve.socket())) {
        // Closed at accept: a client that sends nothing is not kept until its header timeout.
        await().atMost(WAIT).until(silent::closedByServer);
      }
      assertThat(refused(serve)).isEqualTo(2);
      assertThat(serve.counter("routesync.connections.closed", "reason", "header_timeout"))
          .isZero();
      assertThat(open(serve)).isZero();
      assertThat(uidLabels(serve)).doesNotContain(String.valueOf(OWN_UID));
    }
  }

  @Test
  void rootARealClientUnderTheAllowedUidPassesAndOneUnderAnotherIsRefused() throws Exception {
    SetprivClient.assumeAvailable();
    try (ServeHarness serve = listening(PeerPolicy.of(List.of(OTHER_UID), List.of()))) {
      SetprivClient.openDirectory(serve.socket());
      assertThat(SetprivClient.get(serve.socket(), OTHER_UID, 0)).startsWith("HTTP/1.1 200 ");
      assertThat(SetprivClient.get(serve.socket(), STRANGER_UID, 0)).isEmpty();
      try (RawConnection own = RawConnection.unix(serve.socket())) {
        assertThat(sendAndReadAll(own)).isEmpty(); // root is no exception
      }
      assertThat(refused(serve)).isEqualTo(2);
    }
  }

  @Test
  void rootTheGidIsCheckedTooAgainstTheAllowedGids() throws Exception {
    SetprivClient.assumeAvailable();
    try (ServeHarness serve = listening(PeerPolicy.of(List.of(), List.of(OTHER_UID)))) {
      SetprivClient.openDirectory(serve.socket());
      // uid 0 with gid 4242 is in; uid 4343 with gid 0, and this JVM (gid 0), are not.
      assertThat(SetprivClient.get(serve.socket(), 0, OTHER_UID)).startsWith("HTTP/1.1 200 ");
      assertThat(SetprivClient.get(serve.socket(), STRANGER_UID, 0)).isEmpty();
      try (RawConnection own = RawConnection.unix(serve.socket())) {
        assertThat(sendAndReadAll(own)).isEmpty();
      }
      assertThat(refused(serve)).isEqualTo(2);
    }
  }

  @Test
  void rootMoreDistinctUidsThanLabelsNeverGrowTheLabelSet() throws Exception {
    SetprivClient.assumeAvailable();
    int distinct = UidConnections.LABELLED_UIDS + 4;
    int busiest = 5000 + distinct; // holds 3 connections: it must get its own label
    List<SetprivClient.Held> clients = new ArrayList<>();
    try (ServeHarness serve = listening(PeerPolicy.ANY)) {
      SetprivClient.openDirectory(serve.socket());
      try {
        for (int uid = 5001; uid <= busiest; uid++) {
          clients.add(SetprivClient.hold(serve.socket(), uid, 0));
        }
        clients.add(SetprivClient.hold(serve.socket(), busiest, 0));
        clients.add(SetprivClient.hold(serve.socket(), busiest, 0));
        int connections = distinct + 2;
        await()
            .atMost(WAIT)
            .failFast("a client exited", () -> clients.stream().anyMatch(client -> !client.alive()))
            .until(() -> open(serve) == connections);
        await().atMost(WAIT).until(() -> total(serve) == connections);
        assertThat(uidLabels(serve))
            .hasSizeLessThanOrEqualTo(UidConnections.LABELLED_UIDS + 2)
            .contains("other", "unknown", String.valueOf(busiest));
        assertThat(byUid(serve, String.valueOf(busiest))).isEqualTo(3);
        assertThat(byUid(serve, "other"))
            .isEqualTo(connections - 3 - (UidConnections.LABELLED_UIDS - 1));
      } finally {
        for (SetprivClient.Held client : clients) {
          client.close();
        }
      }
      await().atMost(WAIT).until(() -> open(serve) == 0 && total(serve) == 0);
      assertThat(uidLabels(serve)).hasSizeLessThanOrEqualTo(UidConnections.LABELLED_UIDS + 2);
    }
  }

  @Test
  void onNioThereAreNoCredentialsConnectionsAreCountedAsUnknown() throws Exception {
    try (ServeHarness serve =
        new ServeHarness(ConnectionGuards.create(PeerPolicy.ANY, Transport.NIO))) {
      serve.listen().await(10, TimeUnit.SECONDS);
      try (RawConnection held = RawConnection.unix(serve.socket())) {
        await().atMost(WAIT).until(() -> byUid(serve, "unknown") == 1);
      }
    }
  }

  @Test
  void onNioARestrictionCannotBeEnforcedSoTheServerRefusesToStart() throws Exception {
    try (ServeHarness serve =
        new ServeHarness(
            ConnectionGuards.create(PeerPolicy.of(List.of(OWN_UID), List.of()), Transport.NIO))) {
      Throwable failure = failureOf(serve);
      assertThat(failure)
          .isInstanceOf(BadConfigurationException.class)
          .hasMessageContaining("--allow-uids")
          .hasMessageContaining("nio");
    }
  }

  @Test
  void withTcpARestrictionCannotBeEnforcedSoTheServerRefusesToStart() throws Exception {
    try (ServeHarness serve =
        new ServeHarness(
            ConnectionGuards.create(PeerPolicy.of(List.of(), List.of(OWN_GID))),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      Throwable failure = failureOf(serve);
      assertThat(failure)
          .isInstanceOf(BadConfigurationException.class)
          .hasMessageContaining("--listen-tcp")
          .hasMessageContaining("--allow-gids");
    }
  }

  private static ServeHarness listening(PeerPolicy policy) throws Exception {
    ServeHarness serve = new ServeHarness(ConnectionGuards.create(policy));
    serve.listen().await(10, TimeUnit.SECONDS);
    return serve;
  }

  private static Throwable failureOf(ServeHarness serve) throws Exception {
    try {
      serve.listen().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("listened, but the restriction cannot be enforced");
  }

  /** A whole request, then everything until the server closes (a refused write is no answer). */
  private static String sendAndReadAll(RawConnection connection) throws IOException {
    try {
      connection.write(REQUEST);
    } catch (IOException closedAlready) {
      // Broken pipe: the server closed before the request was written.
    }
    return connection.readToEnd(WAIT);
  }

  private static double refused(ServeHarness serve) {
    return serve.counter(
        "routesync.connections.closed", "listener", "socket", "reason", CloseReason.PEER.label());
  }

  private static double open(ServeHarness serve) {
    Gauge gauge =
        serve.registry().find("routesync.connections.open").tag("listener", "socket").gauge();
    return gauge == null ? -1 : gauge.value();
  }

  private static double byUid(ServeHarness serve, String uid) {
    Gauge gauge = serve.registry().find("routesync.connections").tag("uid", uid).gauge();
    return gauge == null ? 0 : gauge.value();
  }

  private static double total(ServeHarness serve) {
    return gauges(serve).stream().mapToDouble(Gauge::value).sum();
  }

  private static Set<String> uidLabels(ServeHarness serve) {
    return new java.util.TreeSet<>(
        gauges(serve).stream().map(gauge -> gauge.getId().getTag("uid")).toList());
  }

  private static Collection<Gauge> gauges(ServeHarness serve) {
    return serve.registry().find("routesync.connections").gauges();
  }
}
