package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.VertxException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcStatus;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Path;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class AgentFailuresTest {

  private static final Path SOCKET = Path.of("/run/rs.sock");

  private static String describe(Throwable error) {
    return AgentFailures.describe(error, SOCKET).getMessage();
  }

  @Test
  void aRefusedOrMissingSocketMeansNoAgentIsListening() {
    String noAgent =
        "no agent is listening on /run/rs.sock (is the agent running? set --socket or"
            + " ROUTESYNC_SOCKET)";

    assertThat(describe(new ConnectException("connect(..) failed: Connection refused")))
        .isEqualTo(noAgent);
    assertThat(describe(new IOException("connect(..) failed: No such file or directory")))
        .isEqualTo(noAgent);
    assertThat(describe(new VertxException("wrapped", new ConnectException("refused"))))
        .isEqualTo(noAgent);
  }

  @Test
  void permissionDeniedSaysWhoMayConnect() {
    assertThat(describe(new IOException("connect(..) failed: Permission denied")))
        .isEqualTo(
            "permission denied on /run/rs.sock (the socket is for the agent's user and group)");
  }

  @Test
  void aStatusOtherThanOkIsNamed() {
    assertThat(describe(new InvalidStatusException(GrpcStatus.OK, GrpcStatus.INTERNAL)))
        .isEqualTo("the agent on /run/rs.sock answered INTERNAL");
  }

  @Test
  void aSilentAgentIsReportedWithTheTimeout() {
    assertThat(describe(new TimeoutException()))
        .isEqualTo("the agent on /run/rs.sock did not answer within 10s");
  }

  @Test
  void aClosedConnectionIsReportedAsSuch() {
    assertThat(describe(new HttpClosedException("closed")))
        .isEqualTo("the agent on /run/rs.sock closed the connection");
  }

  @Test
  void anythingElseKeepsTheUnderlyingMessageOnOneLine() {
    assertThat(describe(new IllegalStateException("odd")))
        .isEqualTo(
            "cannot talk to the agent on /run/rs.sock: java.lang.IllegalStateException: odd");
  }
}
