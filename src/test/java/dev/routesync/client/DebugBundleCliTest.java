package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.logs.LogLevels;
import dev.routesync.logs.RecentLines;
import dev.routesync.observe.Metrics;
import dev.routesync.serve.ConnectionGuards;
import dev.routesync.serve.ConnectionLimits;
import dev.routesync.serve.DebugServer;
import dev.routesync.serve.HttpApi;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code routesync debug bundle} through {@code Main}, against a running debug listener. */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class DebugBundleCliTest {

  @TempDir Path folder;
  private DebugServer server;
  private int port;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    server =
        new DebugServer(
            vertx,
            "127.0.0.1",
            0,
            new HttpApi(new TableWriter(Clock.systemUTC(), 16), TableTrust.synced()),
            () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            RecentLines.installed(),
            LogLevels.ofProcess(),
            ConnectionGuards.none(),
            ConnectionLimits.DEFAULT,
            new Metrics(new SimpleMeterRegistry()).serve());
    port = server.listen().await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void writesTheBundleToTheFileAndSaysWhereAndHowLarge() throws Exception {
    Path file = folder.resolve("bundle.tar.gz");

    Cli.Result result =
        Cli.run(
            "debug",
            "bundle",
            "--output-file",
            file.toString(),
            "--debug-address",
            "127.0.0.1:" + port);

    assertThat(result.exitCode()).as(result.err()).isZero();
    long size = Files.size(file);
    assertThat(result.out()).contains(file.toString()).contains("(" + size + " bytes)");
    // A gzip'd tar: its first entry's name is the bundle's folder.
    try (var gzip = new GZIPInputStream(new ByteArrayInputStream(Files.readAllBytes(file)))) {
      String firstName = new String(gzip.readNBytes(100)).trim();
      assertThat(firstName).startsWith("routesync-debug-");
    }
    // Nothing left beside it: the temporary file was moved into place.
    try (Stream<Path> files = Files.list(folder)) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void anUnreachableAgentIsExitCodeOneWithAClearMessage() throws Exception {
    int closed;
    try (ServerSocket probe = new ServerSocket(0)) {
      closed = probe.getLocalPort();
    }
    Path file = folder.resolve("bundle.tar.gz");

    Cli.Result result =
        Cli.run(
            "debug",
            "bundle",
            "--output-file",
            file.toString(),
            "--debug-address",
            "127.0.0.1:" + closed);

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .contains("cannot reach the agent's debug listener at 127.0.0.1:" + closed)
        .contains("kubectl port-forward");
    assertThat(file).doesNotExist();
  }

  @Test
  void anErrorAnswerIsExitCodeOneWithItsJsonBody(Vertx vertx) throws Exception {
    // A listener that answers as the agent does while another bundle is being built.
    var busy =
        vertx
            .createHttpServer()
            .requestHandler(
                request ->
                    request
                        .response()
                        .setStatusCode(429)
                        .putHeader("content-type", "application/json")
                        .end(
                            "{\"status\":429,\"error\":\"a debug bundle is being built already\"}"))
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    Path file = folder.resolve("bundle.tar.gz");
    try {
      Cli.Result result =
          Cli.run(
              "debug",
              "bundle",
              "--output-file",
              file.toString(),
              "--debug-address",
              "127.0.0.1:" + busy.actualPort());

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.err())
          .contains("the agent answered 429")
          .contains("{\"status\":429,\"error\":\"a debug bundle is being built already\"}");
      assertThat(file).doesNotExist();
    } finally {
      busy.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aMalformedAddressIsAUsageError() throws IOException {
    Cli.Result result =
        Cli.run(
            "debug",
            "bundle",
            "--output-file",
            folder.resolve("b.tar.gz").toString(),
            "--debug-address",
            "no-port");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("'no-port' is not HOST:PORT");
  }

  @Test
  void theOutputFileIsRequired() {
    assertThat(Cli.run("debug", "bundle").exitCode()).isEqualTo(2);
  }
}
