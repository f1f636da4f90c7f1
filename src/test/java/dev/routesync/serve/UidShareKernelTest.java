package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.RawConnection;
import dev.routesync.testing.RawH2;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.SetprivClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * As a node sees it: this test's process (one uid) holds every connection the socket would take,
 * each with a call whose request message never comes; a process of another uid (setpriv, so root
 * only: skipped otherwise) still connects and gets its answer, with the kernel's own credentials.
 */
@Timeout(60)
class UidShareKernelTest {

  private static final Duration LONG = Duration.ofSeconds(30);
  private static final int CAP = 32;

  @Test
  void anotherUidGetsAnAnswerWhileOneUidHoldsTheSocketWithHalfSentCalls() throws Exception {
    SetprivClient.assumeAvailable();
    List<RawConnection> held = new ArrayList<>();
    try (ServeHarness serve = new ServeHarness(new ConnectionLimits(CAP, LONG, LONG))) {
      SetprivClient.openDirectory(serve.socket());
      for (int i = 0; i < CAP; i++) {
        RawConnection connection = RawConnection.unix(serve.socket());
        held.add(connection);
        try {
          connection.write(RawH2.headersWithoutBody("List"));
        } catch (IOException refusedAtAccept) {
          // Over this uid's share: closed before the bytes went out.
        }
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  serve
                          .registry()
                          .get("routesync.connections.open")
                          .tag("listener", "socket")
                          .gauge()
                          .value()
                      >= CAP * 3 / 4);

      // gid 0: in through the socket's group (0660, the test's group).
      String answer = SetprivClient.get(serve.socket(), SetprivClient.ownUid() + 4242, 0);
      assertThat(answer).startsWith("HTTP/1.1 200 ");
    } finally {
      for (RawConnection connection : held) {
        connection.close();
      }
    }
  }
}
