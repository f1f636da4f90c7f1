package dev.routesync.serve;

import dev.routesync.logs.LogLine;
import dev.routesync.logs.RecentLines;
import dev.routesync.units.Durations;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;

/**
 * Builds the debug bundle: a gzip'd ustar archive ({@link UstarWriter}) of one folder, {@code
 * routesync-debug-<UTC time>/}, holding the read API's documents, the effective configuration
 * (credentials redacted, {@link Redaction}), the Prometheus scrape, the recent log lines, a full
 * thread dump ({@link ThreadDump}) and the versions. Bounded by {@link BundleLimits}.
 *
 * <p>Blocking (a thread dump and gzip take tens of milliseconds): run it on a worker, never on an
 * event loop. Stateless between calls; each call reads the sources once.
 */
final class DebugBundle {

  static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  /** The built archive and the name it is offered under. */
  record Archive(String fileName, byte[] gzip) {}

  private final HttpApi api;
  private final Supplier<? extends MeterRegistry> registry;
  private final RecentLines recent;
  private final Supplier<JsonObject> config;
  private final BundleLimits limits;

  DebugBundle(
      HttpApi api,
      Supplier<? extends MeterRegistry> registry,
      RecentLines recent,
      Supplier<JsonObject> config,
      BundleLimits limits) {
    this.api = api;
    this.registry = registry;
    this.recent = recent;
    this.config = config;
    this.limits = limits;
  }

  Archive build(Instant now) {
    String folder = "routesync-debug-" + STAMP.format(now);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * 1024);
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      UstarWriter tar = new UstarWriter(gzip, now.getEpochSecond());
      long remaining = limits.totalBytes();
      for (Map.Entry<String, Supplier<String>> entry : entries(now).entrySet()) {
        byte[] content = limits.fit(text(entry.getValue()), remaining);
        remaining -= content.length;
        tar.add(folder + "/" + entry.getKey(), content);
      }
      tar.finish();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in memory: not expected
    }
    return new Archive(folder + ".tar.gz", bytes.toByteArray());
  }

  // In the order a reader wants them, and each read only when its turn comes (lazily), so that a
  // failing source costs its own entry, not the bundle.
  private Map<String, Supplier<String>> entries(Instant now) {
    Map<String, Supplier<String>> entries = new LinkedHashMap<>();
    entries.put("version.txt", () -> version(now));
    entries.put("status.json", api::statusDocument);
    entries.put("services.json", api::servicesDocument);
    entries.put("drift.json", api::driftDocument);
    entries.put("clients.json", api::clientsDocument);
    entries.put("config.json", () -> Redaction.redact(config.get()).encodePrettily());
    entries.put("metrics.txt", this::metrics);
    entries.put("logs.txt", this::logs);
    entries.put("threads.txt", ThreadDump::ofProcess);
    return entries;
  }

  private static byte[] text(Supplier<String> source) {
    String text;
    try {
      text = source.get();
    } catch (RuntimeException e) {
      text = "could not be read: " + e + "\n";
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private String metrics() {
    MeterRegistry current = registry.get();
    if (current instanceof PrometheusMeterRegistry prometheus) {
      return prometheus.scrape();
    }
    return "the agent's registry is not a Prometheus registry ("
        + current.getClass().getSimpleName()
        + "): GET /debug/meters lists its meters\n";
  }

  private String logs() {
    StringBuilder out = new StringBuilder();
    for (LogLine line : recent.lines()) {
      out.append(line.time())
          .append(' ')
          .append(line.level())
          .append(" [")
          .append(line.thread())
          .append("] ")
          .append(line.logger())
          .append(": ")
          .append(line.message())
          .append('\n');
    }
    return out.toString();
  }

  static String version(Instant now) {
    String version = DebugBundle.class.getPackage().getImplementationVersion();
    var runtime = ManagementFactory.getRuntimeMXBean();
    return "routesync "
        + (version == null ? "dev" : version)
        + "\njava "
        + System.getProperty("java.version")
        + " ("
        + System.getProperty("java.vendor")
        + ", "
        + System.getProperty("java.vm.name")
        + " "
        + System.getProperty("java.vm.version")
        + ")\nos "
        + System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + " "
        + System.getProperty("os.arch")
        + "\npid "
        + ProcessHandle.current().pid()
        + "\nuptime "
        + Durations.format(Duration.ofSeconds(runtime.getUptime() / 1000))
        + "\nbundle created "
        + now
        + "\n";
  }
}
