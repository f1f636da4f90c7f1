package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import dev.routesync.config.AgentConfig;
import dev.routesync.state.StateFile;
import dev.routesync.state.StateSettings;
import dev.routesync.state.TableCodec;
import dev.routesync.state.WarmStart;
import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import dev.routesync.testing.TcpProxy;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A state file that does not load is one warning and a count, and a cold start: the agent serves
 * nothing from it (not a part of it either), and serves after its first list. A state file that
 * cannot be written is counted and retried, and publishing goes on.
 */
class CorruptStateTest {

  private static final Duration CONVERGE = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** Each damage, and the reason it is counted under. */
  enum Damage {
    TRUNCATED("truncated"),
    BIT_FLIPPED("checksum"),
    WRONG_VERSION("version"),
    ZERO_BYTES("empty"),
    // (Something other than a file at the path is refused at start: see StartFailuresTest.)
    /** Undamaged: a good file (for the trust test below). */
    NONE("");

    final String reason;

    Damage(String reason) {
      this.reason = reason;
    }
  }

  @ParameterizedTest
  @EnumSource(value = Damage.class, mode = EnumSource.Mode.EXCLUDE, names = "NONE")
  void aDamagedStateFileIsIgnoredCountedAndTheAgentServesAfterItsFirstList(Damage damage)
      throws Exception {
    Path stateFile = dir.resolve("table.bin");
    damage(stateFile, damage);
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port());
        LogCapture log = new LogCapture(WarmStart.class.getName(), Level.WARN)) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1))));
      proxy.cut(); // the API server is away at start: the file is all the agent could serve

      try (AgentHarness agent =
              AgentHarness.launchWith(proxy.url(), persistTo(stateFile)).cutOnClose(proxy);
          GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
        assertThat(agent.counter("routesync.state.load.failures", "reason", damage.reason))
            .isEqualTo(1);
        assertThat(log.lines())
            .singleElement()
            .satisfies(line -> assertThat(line).contains("not loaded", damage.reason));
        // A cold start: nothing served, not even part of the file's table.
        assertThat(agent.agent().freshness().level()).isEqualTo(TableTrust.Level.NONE);
        assertThat(agent.table().serviceCount()).isZero();
        assertThat(agent.agent().readiness().isReady()).isFalse();
        assertThatThrownBy(() -> grpc.list(""))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

        proxy.restore(cluster.port());
        agent.awaitInitialSync();

        assertThat(grpc.list("").getServicesCount()).isEqualTo(1);
        assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1");
        await().atMost(CONVERGE).until(() -> agent.agent().readiness().isReady());
        // And the damaged file is replaced by a good one.
        await()
            .atMost(CONVERGE)
            .until(() -> agent.counter("routesync.state.writes", "result", "ok") >= 1);
        assertThat(
                TableCodec.decode(Files.readAllBytes(stateFile), Instant.now(), 8)
                    .table()
                    .serviceCount())
            .isEqualTo(1);
      }
    }
  }

  @Test
  void aStateFileAnotherUserPlantedIsNotServedDuringAnOutage() throws Exception {
    // As reported: a valid table owned by another uid, mode 0666, in a world-writable sticky
    // directory, while the API server is away. It was served; any local user could plant routes.
    assumeTrue(
        (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0,
        "needs root to chown the planted file to another uid");
    Path shared = Files.createDirectory(dir.resolve("shared"));
    Files.setAttribute(shared, "unix:mode", 01777);
    Path stateFile = shared.resolve("table.bin");
    damage(stateFile, Damage.NONE);
    Files.setAttribute(stateFile, "unix:uid", 65534);
    Files.setPosixFilePermissions(stateFile, PosixFilePermissions.fromString("rw-rw-rw-"));
    try (MockCluster cluster = new MockCluster();
        TcpProxy proxy = new TcpProxy(cluster.port());
        LogCapture log = new LogCapture(WarmStart.class.getName(), Level.WARN)) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1))));
      proxy.cut();

      try (AgentHarness agent =
              AgentHarness.launchWith(proxy.url(), persistTo(stateFile)).cutOnClose(proxy);
          GrpcJavaClient grpc = new GrpcJavaClient(agent.socket())) {
        assertThat(agent.counter("routesync.state.load.failures", "reason", "untrusted"))
            .isEqualTo(1);
        assertThat(log.lines())
            .singleElement()
            .satisfies(
                line ->
                    assertThat(line).contains("not loaded", "untrusted", "belongs to uid 65534"));
        assertThat(agent.agent().freshness().level()).isEqualTo(TableTrust.Level.NONE);
        assertThat(agent.table().serviceCount()).isZero();
        assertThatThrownBy(() -> grpc.list(""))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

        proxy.restore(cluster.port());
        agent.awaitInitialSync();
        // The planted file is of the agent's format, so the agent replaces it with its own.
        await()
            .atMost(CONVERGE)
            .until(() -> agent.counter("routesync.state.writes", "result", "ok") >= 1);
        assertThat(Files.getAttribute(stateFile, "unix:uid")).isEqualTo(0);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(stateFile)))
            .isEqualTo("rw-------");
        assertThat(agent.ips("shop", "web")).containsExactly("10.0.0.1");
      }
    }
  }

  @Test
  void aStateFileThatCannotBeWrittenIsCountedAndPublishingGoesOn() throws Exception {
    // A regular file where the state directory should be: no write can succeed, even as root.
    Path blocker = dir.resolve("state");
    Files.writeString(blocker, "not a directory");
    Path stateFile = blocker.resolve("table.bin");
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1))));
      try (AgentHarness agent = AgentHarness.startWith(cluster.url(), persistTo(stateFile), 0)) {
        await()
            .atMost(CONVERGE)
            .until(() -> agent.counter("routesync.state.writes", "result", "failed") >= 1);

        cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of(pod(1), pod(2))));
        await()
            .atMost(CONVERGE)
            .until(() -> agent.ips("shop", "web").equals(List.of("10.0.0.1", "10.0.0.2")));
        assertThat(agent.counter("routesync.state.writes", "result", "ok")).isZero();

        // The directory becomes writable: the next flush tick writes the table then current.
        Files.delete(blocker);
        await()
            .atMost(CONVERGE)
            .until(() -> agent.counter("routesync.state.writes", "result", "ok") >= 1);
        assertThat(
                TableCodec.decode(Files.readAllBytes(stateFile), Instant.now(), 8)
                    .table()
                    .get(new ServiceKey("shop", "web"))
                    .orElseThrow()
                    .endpoints())
            .hasSize(2);
        cluster.close(); // before the agent: see MockCluster#url
      }
    }
  }

  private static UnaryOperator<AgentConfig> persistTo(Path stateFile) {
    return config ->
        config.withState(new StateSettings(Optional.of(stateFile), Duration.ofMillis(100)));
  }

  /** A good state file of two Services, then damaged (unless {@code NONE}). */
  private static void damage(Path path, Damage damage) throws Exception {
    TableWriter writer = new TableWriter(Clock.systemUTC(), 8, 1);
    writer.publish(
        Map.of(
            new ServiceKey("shop", "web"), ServiceState.of(List.of(endpoint("10.9.9.1"))),
            new ServiceKey("shop", "old"), ServiceState.of(List.of(endpoint("10.9.9.2")))),
        List.of());
    RoutingTable table = writer.current();
    new StateFile(path).write(table, Instant.now(), Optional.of(Instant.now()), true);
    byte[] bytes = Files.readAllBytes(path);
    switch (damage) {
      case TRUNCATED -> bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2 / 3);
      case BIT_FLIPPED -> bytes[TableCodec.HEADER_BYTES + 5] ^= 0x04;
      case WRONG_VERSION -> ByteBuffer.wrap(bytes).putShort(4, (short) 7);
      case ZERO_BYTES -> bytes = new byte[0];
      case NONE -> {
        return;
      }
      default -> throw new IllegalArgumentException(damage.name());
    }
    Files.write(path, bytes);
  }

  private static Endpoint endpoint(String ip) {
    return new Endpoint(ip, List.of(), null, null, null, true, true, false);
  }

  private static Pod pod(int n) {
    return Pod.ready("pod-" + n, "10.0.0." + n);
  }
}
