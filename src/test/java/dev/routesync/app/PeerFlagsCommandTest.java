package dev.routesync.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --allow-uids}/{@code --allow-gids} where they cannot be enforced: exit 2, saying why. */
class PeerFlagsCommandTest {

  @TempDir Path dir;

  // Should the agent start after all, the timeout ends the test instead of hanging the build.
  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aRestrictionWithTheTcpListenerIsRefusedAtStartWithExitCode2() throws Exception {
    // Loaded, never contacted: the agent fails at its listeners, before any watch starts.
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]",
            "users: [{name: u, user: {token: t}}]",
            "contexts: [{name: x, context: {cluster: c, user: u}}]",
            "current-context: x",
            ""));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));

    int exitCode =
        commandLine.execute(
            "agent",
            "--kubeconfig",
            kubeconfig.toString(),
            "--socket",
            dir.resolve("rs.sock").toString(),
            "--admin-port",
            "0",
            "--listen-tcp",
            "127.0.0.1:0",
            "--listen-tcp-insecure",
            "--allow-uids",
            "1000,1001");

    assertThat(exitCode).isEqualTo(2);
    assertThat(err.toString())
        .startsWith("routesync: cannot start: --allow-uids/--allow-gids (uids=1000,1001 gids=any)")
        .contains("cannot be enforced on --listen-tcp");
    assertThat(dir.resolve("rs.sock")).doesNotExist();
  }
}
