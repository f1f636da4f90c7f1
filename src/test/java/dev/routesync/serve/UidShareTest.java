package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.RawConnection;
import dev.routesync.testing.RawH2;
import dev.routesync.testing.ServeHarness;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One uid holding the socket's connections with half-sent calls does not keep another uid out: a
 * uid holds at most three quarters of the cap ({@link UidShare}), and the refusals are counted by
 * uid. Here the test plays the uids through an injected credential source; {@link
 * UidShareKernelTest} does it with real processes of another uid.
 */
@Timeout(60)
class UidShareTest {

  private static final Duration LONG = Duration.ofSeconds(30);
  private static final int CAP = 16;
  // Timeouts long enough that nothing but the share frees a slot while the test runs.
  private static final ConnectionLimits LIMITS = new ConnectionLimits(CAP, LONG, LONG, LONG);
  private static final String GET =
      "GET /v1/services HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

  private final AtomicInteger nextUid = new AtomicInteger();
  private final List<RawConnection> held = new ArrayList<>();

  @AfterEach
  void closeHeld() throws IOException {
    for (RawConnection connection : held) {
      connection.close();
    }
  }

  private ServeHarness serve() throws Exception {
    return new ServeHarness(
        LIMITS,
        ConnectionGuards.withCredentials(channel -> new Peer(1, nextUid.get(), nextUid.get())));
  }

  @Test
  void oneUidHoldingHalfSentCallsLeavesAQuarterOfTheCapToOthers() throws Exception {
    try (ServeHarness serve = serve()) {
      nextUid.set(1000);
      for (int i = 0; i < CAP; i++) {
        holdHalfSentCall(serve);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == CAP * 3 / 4);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> refused(serve, "1000", "uid_share") == CAP / 4);

      // Another uid connects and gets its answer, up to the cap.
      nextUid.set(2000);
      for (int i = 0; i < CAP / 4 - 1; i++) {
        holdHalfSentCall(serve);
      }
      try (RawConnection other = RawConnection.unix(serve.socket())) {
        assertThat(other.write(GET).readToEnd(Duration.ofSeconds(5))).startsWith("HTTP/1.1 200 ");
      }
      // The cap itself still holds, for every uid, and the refusal is counted as the cap's.
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == CAP - 1);
      holdHalfSentCall(serve);
      nextUid.set(3000);
      try (RawConnection third = RawConnection.unix(serve.socket())) {
        await().atMost(Duration.ofSeconds(5)).until(third::closedByServer);
      }
      assertThat(refused(serve, "3000", "cap")).isEqualTo(1);
    }
  }

  @Test
  void aUidAloneMayUseThreeQuartersOfTheCapAndGetsSlotsBackAsItsConnectionsClose()
      throws Exception {
    try (ServeHarness serve = serve()) {
      nextUid.set(1000);
      for (int i = 0; i < CAP * 3 / 4; i++) {
        holdHalfSentCall(serve);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == CAP * 3 / 4);
      try (RawConnection refused = RawConnection.unix(serve.socket())) {
        await().atMost(Duration.ofSeconds(5)).until(refused::closedByServer);
      }
      held.remove(0).close();
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == CAP * 3 / 4 - 1);
      try (RawConnection again = RawConnection.unix(serve.socket())) {
        assertThat(again.write(GET).readToEnd(Duration.ofSeconds(5))).startsWith("HTTP/1.1 200 ");
      }
    }
  }

  @Test
  void theRefusalMetricKeepsABoundedSetOfUidLabels() throws Exception {
    try (ServeHarness serve = serve()) {
      nextUid.set(1000);
      for (int i = 0; i < CAP; i++) {
        holdHalfSentCall(serve);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == CAP * 3 / 4);
      nextUid.set(2000);
      for (int i = 0; i < CAP / 4; i++) {
        holdHalfSentCall(serve);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> open(serve) == CAP);
      // A client choosing a fresh uid for each attempt (as far as the socket's mode lets it):
      // the series stop growing at the labelled uids, the rest count as "other".
      for (int uid = 5000; uid < 5040; uid++) {
        nextUid.set(uid);
        try (RawConnection refused = RawConnection.unix(serve.socket())) {
          await()
              .pollInterval(Duration.ofMillis(5))
              .atMost(Duration.ofSeconds(5))
              .until(refused::closedByServer);
        }
      }
      long series = serve.registry().find("routesync.socket.refused").counters().size();
      assertThat(series).isLessThanOrEqualTo((32 + 2) * SocketRefusal.values().length);
      // uid 1000 took the first label (its refusals over its share), 5000..5030 the rest.
      assertThat(refused(serve, "1000", "uid_share")).isEqualTo(CAP / 4);
      assertThat(refused(serve, "5030", "cap")).isEqualTo(1);
      assertThat(refused(serve, "other", "cap")).isEqualTo(40 - 31);
    }
  }

  /** One connection, admitted or refused, with the HEADERS of a call whose message never comes. */
  private void holdHalfSentCall(ServeHarness serve) throws IOException {
    int before = (int) open(serve);
    RawConnection connection = RawConnection.unix(serve.socket());
    held.add(connection);
    try {
      connection.write(RawH2.headersWithoutBody("List"));
    } catch (IOException refusedAtAccept) {
      // Closed before the bytes went out: the refusal under test.
    }
    // Accepted (counted) or refused (closed): either way the agent has seen it before the next.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> open(serve) > before || connection.closedByServer());
  }

  private static double open(ServeHarness serve) {
    return serve
        .registry()
        .get("routesync.connections.open")
        .tag("listener", "socket")
        .gauge()
        .value();
  }

  private static double refused(ServeHarness serve, String uid, String reason) {
    var counter =
        serve.registry().find("routesync.socket.refused").tag("uid", uid).tag("reason", reason);
    return counter.counter() == null ? 0 : counter.counter().count();
  }
}
