package dev.routesync.serve;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.config.AgentConfig;
import dev.routesync.config.AgentOptions;
import dev.routesync.config.FlagTypes;
import dev.routesync.logs.LogLevels;
import dev.routesync.logs.RecentLines;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.testing.Http1;
import dev.routesync.testing.LibraryLog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code GET /debug/bundle} over real HTTP, the archive extracted by the system's {@code tar}:
 * every entry there and readable, no credential in any of them, the bounds, one bundle at a time.
 */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class DebugBundleTest {

  static final List<String> ENTRIES =
      List.of(
          "version.txt",
          "status.json",
          "services.json",
          "drift.json",
          "clients.json",
          "config.json",
          "metrics.txt",
          "logs.txt",
          "threads.txt");
  private static final String TOKEN = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2VuLXZhbHVl.sig";
  private static final String PASSWORD = "hunter2-not-for-bundles";

  private final TableWriter table = new TableWriter(Clock.systemUTC(), 16);
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private TableTrust trust = TableTrust.synced();
  private DebugServer server;
  private String base;
  @TempDir Path folder;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    registry.counter("routesync.test.bundles").increment();
    server =
        new DebugServer(
                vertx,
                "127.0.0.1",
                0,
                new HttpApi(table, trust),
                () -> registry,
                RecentLines.installed(),
                LogLevels.ofProcess(),
                ConnectionGuards.none(),
                ConnectionLimits.DEFAULT,
                new Metrics(new SimpleMeterRegistry()).serve())
            .describeConfiguration(
                config(),
                Map.of(
                    "server",
                    "https://admin:" + PASSWORD + "@10.0.0.1:6443",
                    "namespace",
                    "routesync",
                    "auth",
                    "token",
                    "token",
                    TOKEN));
    base = "http://127.0.0.1:" + server.listen().await(10, TimeUnit.SECONDS);
    table.publish(
        states(
            Map.of(
                new ServiceKey("shop", "cart"),
                List.of(
                    new Endpoint(
                        "10.0.0.1",
                        List.of(new Port("http", 8080, "TCP")),
                        "zone-a",
                        "node-a",
                        "cart-1",
                        true,
                        true,
                        false)))),
        List.of());
  }

  @AfterEach
  void stop() throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void theBundleHoldsEveryEntryReadableAndNoCredential() throws Exception {
    LoggerFactory.getLogger(DebugBundleTest.class).warn("a line for the bundle's logs.txt");
    HttpResponse<byte[]> response = fetch();

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/gzip");
    String disposition = response.headers().firstValue("content-disposition").orElseThrow();
    assertThat(disposition)
        .matches("attachment; filename=\"routesync-debug-\\d{8}T\\d{6}Z.tar.gz\"");
    Path bundle = extract(response.body());

    assertThat(names(bundle)).containsExactlyInAnyOrderElementsOf(ENTRIES);
    for (String json : List.of("status.json", "services.json", "drift.json", "clients.json")) {
      assertThat(new JsonObject(read(bundle, json))).as(json).isNotNull();
    }
    assertThat(new JsonObject(read(bundle, "status.json")).getString("trust")).isEqualTo("SYNCED");
    assertThat(read(bundle, "services.json")).contains("\"cart\"");
    assertThat(new JsonObject(read(bundle, "drift.json")).getString("detector")).isNotNull();

    JsonObject config = new JsonObject(read(bundle, "config.json"));
    Set<String> components =
        Arrays.stream(AgentConfig.class.getRecordComponents())
            .map(c -> c.getName())
            .collect(Collectors.toSet());
    assertThat(config.getJsonObject("agent").fieldNames()).isEqualTo(components);
    assertThat(config.getJsonObject("kubeconfig").getString("namespace")).isEqualTo("routesync");
    assertThat(config.getJsonObject("kubeconfig").getString("auth")).isEqualTo("token");
    assertThat(config.getJsonObject("kubeconfig").getString("token")).isEqualTo("<redacted>");

    assertThat(read(bundle, "metrics.txt")).contains("routesync_test_bundles_total");
    assertThat(read(bundle, "logs.txt")).contains("a line for the bundle's logs.txt");
    assertThat(read(bundle, "version.txt")).startsWith("routesync ").contains("java ", "pid ");
    assertThat(stackOf(read(bundle, "threads.txt"), Thread.currentThread().getName()))
        .hasSizeGreaterThan(8)
        .anySatisfy(frame -> assertThat(frame).contains(DebugBundleTest.class.getName()));

    // No credential anywhere in the extracted folder, whatever the entry.
    try (Stream<Path> files = Files.walk(bundle)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        String text = Files.readString(file);
        assertThat(text).as(file.toString()).doesNotContain(TOKEN).doesNotContain(PASSWORD);
      }
    }
  }

  @Test
  void aBearerTokenALibraryLoggedIsRedactedInLogsTxt() throws Exception {
    LibraryLog.warn(LibraryLog.FABRIC8_HTTP, "> Authorization: Bearer abc.def.ghi");

    String logs = read(extract(fetch().body()), "logs.txt");

    assertThat(logs).contains("> Authorization: Bearer <redacted>").doesNotContain("abc.def.ghi");
  }

  @Test
  void servicesHoldsTheReadApisRefusalWhileTheTableIsNotTrusted(Vertx vertx) throws Exception {
    server.close().await(10, TimeUnit.SECONDS);
    server =
        new DebugServer(
            vertx,
            "127.0.0.1",
            0,
            new HttpApi(table, TableTrust.untrusted()),
            () -> registry,
            RecentLines.installed(),
            LogLevels.ofProcess(),
            ConnectionGuards.none(),
            ConnectionLimits.DEFAULT,
            new Metrics(new SimpleMeterRegistry()).serve());
    base = "http://127.0.0.1:" + server.listen().await(10, TimeUnit.SECONDS);

    Path bundle = extract(fetch().body());

    JsonObject services = new JsonObject(read(bundle, "services.json"));
    assertThat(services.getInteger("status")).isEqualTo(503);
    assertThat(services.getString("error")).contains(TableTrust.NOT_SYNCED);
    assertThat(new JsonObject(read(bundle, "config.json")).getValue("agent")).isNull();
  }

  @Test
  void anEntryOverItsBoundIsCutAndSaysHowLargeItWas() throws Exception {
    server.bundleLimits(new BundleLimits(4096, 64 * 1024));

    Path bundle = extract(fetch().body());

    Path threads = bundle.resolve("threads.txt");
    assertThat(Files.size(threads)).isLessThanOrEqualTo(4096);
    assertThat(Files.readString(threads))
        .containsPattern("\\[cut: this entry was \\d+ bytes; a debug bundle keeps at most 4096")
        .endsWith("]\n");
  }

  @Test
  void aSecondBundleWhileOneIsBeingBuiltGets429() throws Exception {
    CountDownLatch building = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    server.beforeBundle(
        () -> {
          building.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    CompletableFuture<HttpResponse<byte[]>> first =
        client().sendAsync(request(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(building.await(10, TimeUnit.SECONDS)).isTrue();

    HttpResponse<String> second = Http1.get(base + "/debug/bundle");
    release.countDown();

    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(new JsonObject(second.body()).getString("error")).contains("being built already");
    assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    // Once the first is done, the next one is built.
    server.beforeBundle(() -> {});
    assertThat(fetch().statusCode()).isEqualTo(200);
  }

  private static AgentConfig config() {
    var command = new OptionsCommand();
    FlagTypes.register(new CommandLine(command)).parseArgs("--node-name", "node-a");
    return command.options.toConfig();
  }

  @CommandLine.Command
  static final class OptionsCommand {
    @CommandLine.Mixin AgentOptions options;
  }

  /** The frames printed under the thread named {@code name}. */
  static List<String> stackOf(String dump, String name) {
    List<String> lines = dump.lines().toList();
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("\"" + name + "\" #")) {
        start = i;
        break;
      }
    }
    assertThat(start).as("thread %s in the dump", name).isNotNegative();
    return lines.subList(start + 1, lines.size()).stream()
        .takeWhile(line -> !line.isEmpty())
        .filter(line -> line.startsWith("\tat "))
        .toList();
  }

  private HttpResponse<byte[]> fetch() throws Exception {
    return client()
        .sendAsync(request(), HttpResponse.BodyHandlers.ofByteArray())
        .get(20, TimeUnit.SECONDS);
  }

  private HttpRequest request() {
    return HttpRequest.newBuilder(URI.create(base + "/debug/bundle"))
        .timeout(Duration.ofSeconds(20))
        .build();
  }

  private static HttpClient client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** Writes the archive, extracts it with the system's tar, returns its one folder. */
  private Path extract(byte[] archive) throws Exception {
    Path out = Files.createTempDirectory(folder, "bundle");
    Files.write(out.resolve("bundle.tar.gz"), archive);
    SystemTar.run(out, "-xzf", "bundle.tar.gz");
    try (Stream<Path> children = Files.list(out)) {
      List<Path> folders = children.filter(Files::isDirectory).toList();
      assertThat(folders).hasSize(1);
      assertThat(folders.get(0).getFileName().toString()).matches("routesync-debug-\\d{8}T\\d{6}Z");
      return folders.get(0);
    }
  }

  private static List<String> names(Path bundle) throws Exception {
    try (Stream<Path> files = Files.list(bundle)) {
      return files.map(f -> f.getFileName().toString()).toList();
    }
  }

  private static String read(Path bundle, String name) throws Exception {
    return Files.readString(bundle.resolve(name), StandardCharsets.UTF_8);
  }
}
