package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every client command, when nothing answers on the socket: one line, exit code 1. */
@Timeout(30)
class NoAgentTest {

  @TempDir Path dir;

  private static String[] with(String command, Path socket) {
    return (command + " --socket " + socket).split(" ");
  }

  private static String noAgentLine(Path socket) {
    return "routesync: no agent is listening on "
        + socket
        + " (is the agent running? set --socket or ROUTESYNC_SOCKET)\n";
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "get services",
        "get services -n shop -o json",
        "get endpoints shop/cart",
        "watch"
      })
  void saysNoAgentIsListeningWhenTheSocketFileDoesNotExist(String command) {
    Path socket = dir.resolve("missing.sock");

    Cli.Result result = Cli.run(with(command, socket));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo(noAgentLine(socket));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "get services",
        "get services -n shop -o json",
        "get endpoints shop/cart",
        "watch"
      })
  void saysNoAgentIsListeningWhenAStaleSocketIsLeftWithoutListener(String command)
      throws Exception {
    Path socket = dir.resolve("stale.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(socket));
    }
    assertThat(socket).exists();

    Cli.Result result = Cli.run(with(command, socket));

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo(noAgentLine(socket));
  }

  @Test
  void saysNoAgentIsListeningWhenThePathIsAPlainFile() throws Exception {
    Path socket = Files.createFile(dir.resolve("plain.sock"));

    Cli.Result result = Cli.run("get", "services", "--socket", socket.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo(noAgentLine(socket));
  }
}
