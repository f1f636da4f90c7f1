package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IPv6 check must never consult the resolver: it runs on the sync thread for every endpoint,
 * and a DNS lookup there would block it (and send a lookup for a name taken from an API object).
 * {@code InetAddress.getByName} treats text as a literal only when it starts with a hex digit or
 * ':', so text that starts with '.' went to the resolver. A JVM whose hosts file answers for such
 * names shows it: before the fix, {@code .1::} "resolved" to {@code ::1}.
 */
class IpAddressesResolverTest {

  private static final List<String> NOT_LITERALS = List.of(".1::", ".::1", "..:", ".a:b");

  @Test
  void textThatIsNoLiteralNeverReachesTheResolver(@TempDir Path dir)
      throws IOException, InterruptedException {
    Path hosts = dir.resolve("hosts");
    StringBuilder lines = new StringBuilder();
    for (String name : NOT_LITERALS) {
      lines.append("::1 ").append(name).append('\n');
    }
    Files.writeString(hosts, lines);
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Djdk.net.hosts.file=" + hosts);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ResolverProbe.class.getName());
    command.addAll(NOT_LITERALS);
    Process probe = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(probe.waitFor(60, TimeUnit.SECONDS)).as("probe finished").isTrue();
    String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(output.lines().toList()).as(output).containsExactly("null", "null", "null", "null");
  }
}
