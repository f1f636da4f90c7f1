package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/**
 * Configuration that is well-formed but does not fit this machine is found only when the agent
 * starts. It is still the operator's to fix: exit code 2 and one line, as a bad flag; a listener
 * that cannot bind says which one (exit code 1: the port may be free at the next try).
 */
// Each invocation must fail to start; should one start, the timeout ends the test instead of
// hanging the build.
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StartFailuresTest {

  @TempDir Path dir;

  record Result(int exitCode, String out, List<String> errLines) {}

  /** {@code routesync agent ARGS}, on a socket in the temporary directory, admin port off. */
  private Result agent(String... args) {
    List<String> invocation = new ArrayList<>(List.of("agent"));
    List<String> given = List.of(args);
    if (!given.contains("--socket")) {
      invocation.addAll(List.of("--socket", dir.resolve("rs.sock").toString()));
    }
    if (!given.contains("--admin-port")) {
      invocation.addAll(List.of("--admin-port", "0"));
    }
    if (!given.contains("--state-file")) {
      // Never the host's state directory (/var/run/routesync/state) from a test.
      invocation.addAll(
          List.of("--state-file", dir.resolve("state").resolve("table.bin").toString()));
    }
    invocation.addAll(given);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(invocation.toArray(String[]::new));
    return new Result(exitCode, out.toString(), err.toString().lines().toList());
  }

  /** A kubeconfig that loads, for an API server that is not there (the agent starts anyway). */
  private Path unreachableClusterKubeconfig() throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: nowhere
          cluster:
            server: https://127.0.0.1:1
        users:
        - name: someone
          user:
            token: not-a-real-token
        contexts:
        - name: nowhere
          context:
            cluster: nowhere
            user: someone
        current-context: nowhere
        """);
    return file;
  }

  private static int freePort() throws Exception {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }

  @Test
  void aMissingKubeconfigIsAUsageError() {
    Path missing = dir.resolve("no-such-kubeconfig");

    Result result = agent("--kubeconfig", missing.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.errLines())
        .singleElement()
        .asString()
        .startsWith("routesync: cannot start: --kubeconfig " + missing + ": ")
        .contains("no such file");
  }

  @Test
  void anInvalidKubeconfigIsAUsageError() throws Exception {
    Path garbage = dir.resolve("garbage-kubeconfig");
    Files.writeString(garbage, "{this is: [not, a kubeconfig\n");

    Result result = agent("--kubeconfig", garbage.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.errLines())
        .singleElement()
        .asString()
        .startsWith("routesync: cannot start: --kubeconfig " + garbage + ": ");
  }

  @Test
  void anUnresolvableAdminHostIsAUsageError() throws Exception {
    Result result =
        agent(
            "--kubeconfig",
            unreachableClusterKubeconfig().toString(),
            "--admin-host",
            "no-such-host.invalid",
            "--admin-port",
            Integer.toString(freePort()));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.errLines())
        .singleElement()
        .asString()
        .startsWith("routesync: cannot start: --admin-host no-such-host.invalid: ")
        .contains("does not resolve");
  }

  enum AtTheSocketPath {
    REGULAR_FILE,
    EMPTY_DIRECTORY,
    SYMBOLIC_LINK,
    LIVE_SOCKET_WITHOUT_LOCK
  }

  @ParameterizedTest
  @EnumSource(AtTheSocketPath.class)
  void somethingOtherThanAStaleSocketAtTheSocketPathIsAUsageErrorAndStays(AtTheSocketPath what)
      throws Exception {
    Path socket = dir.resolve("rs.sock");
    ServerSocketChannel listener = null;
    switch (what) {
      case REGULAR_FILE -> Files.writeString(socket, "precious");
      case EMPTY_DIRECTORY -> Files.createDirectory(socket);
      case SYMBOLIC_LINK -> Files.createSymbolicLink(socket, dir.resolve("elsewhere"));
      case LIVE_SOCKET_WITHOUT_LOCK ->
          listener =
              ServerSocketChannel.open(StandardProtocolFamily.UNIX)
                  .bind(UnixDomainSocketAddress.of(socket));
    }
    try {
      Result result =
          agent(
              "--socket",
              socket.toString(),
              "--kubeconfig",
              unreachableClusterKubeconfig().toString());

      assertThat(result.exitCode()).isEqualTo(2);
      assertThat(result.errLines())
          .singleElement()
          .asString()
          .startsWith("routesync: cannot start: --socket " + socket + ": ")
          .contains("refusing to replace it");
      assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).isTrue();
      if (what == AtTheSocketPath.REGULAR_FILE) {
        assertThat(Files.readString(socket)).isEqualTo("precious");
      }
    } finally {
      if (listener != null) {
        listener.close();
      }
    }
  }

  @Test
  void anAdminPortInUseSaysItIsTheAdminListener() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();

      Result result =
          agent(
              "--kubeconfig",
              unreachableClusterKubeconfig().toString(),
              "--admin-host",
              "127.0.0.1",
              "--admin-port",
              Integer.toString(port));

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.errLines())
          .singleElement()
          .asString()
          .startsWith("routesync: cannot start: admin listener 127.0.0.1:" + port + ": ")
          .containsIgnoringCase("address already in use");
    }
  }

  @Test
  void aTcpPortInUseSaysItIsTheTcpListener() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();

      Result result =
          agent(
              "--kubeconfig",
              unreachableClusterKubeconfig().toString(),
              "--listen-tcp",
              "127.0.0.1:" + port,
              "--listen-tcp-insecure");

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.errLines())
          .singleElement()
          .asString()
          .startsWith("routesync: cannot start: tcp listener 127.0.0.1:" + port + ": ")
          .containsIgnoringCase("address already in use");
    }
  }
}
