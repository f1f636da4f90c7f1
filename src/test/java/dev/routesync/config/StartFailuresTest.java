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
      // The refused start created the lock file, and takes it away again.
      assertThat(dir.resolve("rs.sock.lock")).doesNotExist();
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

  // ---- the state file: the agent replaces it at each flush, so it must be nothing else ----

  private Result agentWithStateFile(Path stateFile, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("--state-file", stateFile.toString()));
    args.addAll(List.of(more));
    if (!args.contains("--kubeconfig") && System.getProperty("kubeconfig") == null) {
      args.addAll(List.of("--kubeconfig", unreachableClusterKubeconfig().toString()));
    }
    return agent(args.toArray(String[]::new));
  }

  private static void assertRefused(Result result, String start, String contains) {
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.errLines())
        .singleElement()
        .asString()
        .startsWith("routesync: cannot start: " + start)
        .contains(contains);
  }

  @Test
  void aStateFileThatIsTheKubeconfigIsRefusedAndTheKubeconfigStays() throws Exception {
    Path kubeconfig = unreachableClusterKubeconfig();
    String before = Files.readString(kubeconfig);

    Result result = agentWithStateFile(kubeconfig, "--kubeconfig", kubeconfig.toString());

    assertRefused(
        result,
        "--state-file " + kubeconfig + " is the kubeconfig " + kubeconfig,
        "the agent would overwrite it");
    assertThat(kubeconfig).hasContent(before);
  }

  @Test
  void aStateFileThatIsTheKubeconfigFromKUBECONFIGIsRefused() throws Exception {
    Path kubeconfig = unreachableClusterKubeconfig();
    String before = Files.readString(kubeconfig);
    // fabric8 reads the system property before the KUBECONFIG variable: the same setting.
    System.setProperty("kubeconfig", kubeconfig.toString());
    try {
      // Through a link to the directory: the real paths are compared.
      Path link = Files.createSymbolicLink(dir.resolve("via"), dir);

      Result result = agentWithStateFile(link.resolve("kubeconfig"));

      assertRefused(
          result,
          "--state-file " + link.resolve("kubeconfig") + " is the kubeconfig ",
          "the agent would overwrite it");
      assertThat(kubeconfig).hasContent(before);
    } finally {
      System.clearProperty("kubeconfig");
    }
  }

  @Test
  void aStateFileThatIsTheSocketIsRefused() throws Exception {
    Path socket = dir.resolve("rs.sock");

    Result result = agentWithStateFile(socket, "--socket", socket.toString());

    assertRefused(
        result,
        "--state-file " + socket + " is the socket's path (--socket)",
        "the agent would overwrite it");
    assertThat(socket).doesNotExist();
  }

  @Test
  void aStateFileThatIsTheSocketsLockFileIsRefused() throws Exception {
    Path socket = dir.resolve("rs.sock");

    Result result = agentWithStateFile(dir.resolve("rs.sock.lock"), "--socket", socket.toString());

    assertRefused(
        result,
        "--state-file " + dir.resolve("rs.sock.lock") + " is the socket's lock",
        "the agent would overwrite it");
  }

  enum AtTheStatePath {
    TEXT_FILE,
    DIRECTORY,
    SYMBOLIC_LINK,
    SOCKET
  }

  @ParameterizedTest
  @EnumSource(AtTheStatePath.class)
  void somethingOtherThanAStateFileAtItsPathIsRefusedAndStays(AtTheStatePath what)
      throws Exception {
    Path state = dir.resolve("table.bin");
    ServerSocketChannel listener = null;
    switch (what) {
      case TEXT_FILE -> Files.writeString(state, "precious");
      case DIRECTORY -> Files.createDirectory(state);
      case SYMBOLIC_LINK ->
          Files.createSymbolicLink(state, Files.writeString(dir.resolve("other"), "other"));
      case SOCKET ->
          listener =
              ServerSocketChannel.open(StandardProtocolFamily.UNIX)
                  .bind(UnixDomainSocketAddress.of(state));
    }
    try {
      Result result = agentWithStateFile(state);

      assertRefused(result, "--state-file " + state + ": ", "refusing to replace it");
      assertThat(Files.exists(state, LinkOption.NOFOLLOW_LINKS)).isTrue();
      if (what == AtTheStatePath.TEXT_FILE) {
        assertThat(state).hasContent("precious");
      }
      if (what == AtTheStatePath.SYMBOLIC_LINK) {
        assertThat(Files.isSymbolicLink(state)).isTrue();
        assertThat(dir.resolve("other")).hasContent("other");
      }
    } finally {
      if (listener != null) {
        listener.close();
      }
    }
  }

  // ---- KUBECONFIG is checked as --kubeconfig is ----

  @Test
  void aMissingKubeconfigFromKUBECONFIGIsTheSameUsageError() {
    Path missing = dir.resolve("no-such-kubeconfig");
    Result flag = agent("--kubeconfig", missing.toString());
    System.setProperty("kubeconfig", missing.toString());
    Result variable;
    try {
      variable = agent();
    } finally {
      System.clearProperty("kubeconfig");
    }

    assertThat(variable.exitCode()).isEqualTo(2).isEqualTo(flag.exitCode());
    assertThat(variable.errLines())
        .singleElement()
        .asString()
        .isEqualTo("routesync: cannot start: KUBECONFIG " + missing + ": no such file");
    assertThat(flag.errLines())
        .singleElement()
        .asString()
        .isEqualTo("routesync: cannot start: --kubeconfig " + missing + ": no such file");
  }
}
