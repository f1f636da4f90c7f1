package dev.routesync.bench;

import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * What the agent's drift detector says: {@code GET /v1/drift} on its socket (whether it runs, and
 * the drifts it reports; the admin port does not serve it) and its gauges on the admin port's
 * {@code /metrics}: {@code routesync_drift_pods} (sum) and {@code
 * routesync_service_ready_endpoints} (one series per Service with pods on this node, so their count
 * shows that the detector matched this node's pods to their Services, and their sum that it read
 * those Services' slices).
 *
 * <p>The node {@link ScaleSeed} writes is clean, so a run that measures the detector checks that it
 * is {@code on}, reports nothing, and sees the Services the seed put pods of on this node.
 */
final class DriftCheck {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The detector as the agent reports it. */
  record Report(
      String detector,
      int drifts,
      double driftPods,
      int servicesWithPodsHere,
      double readyEndpointsOfThose) {

    /** Whether it is what the seed wrote: on, clean, and every Service with pods here seen. */
    boolean matches(ScaleSeed.Seeded seeded) {
      return "on".equals(detector)
          && drifts == 0
          && driftPods == 0
          && servicesWithPodsHere == seeded.servicesWithPodsHere()
          && readyEndpointsOfThose == seeded.readyEndpointsOfThose();
    }

    String line() {
      return String.format(
          Locale.ROOT,
          "detector %s; %d drifts (routesync_drift_pods %.0f); ready-endpoint gauges for %d"
              + " Services with pods here, %.0f endpoints",
          detector,
          drifts,
          driftPods,
          servicesWithPodsHere,
          readyEndpointsOfThose);
    }
  }

  private DriftCheck() {}

  /** The detector's report once it is past {@code starting} (or {@code timeout} passed). */
  static Report await(HttpClient http, int adminPort, Path socket, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Report report = read(http, adminPort, socket);
    while ("starting".equals(report.detector()) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      report = read(http, adminPort, socket);
    }
    return report;
  }

  static Report read(HttpClient http, int adminPort, Path socket) throws Exception {
    JsonNode drift = JSON.readTree(socketGet(socket, "/v1/drift"));
    String metrics = get(http, adminPort, "/metrics");
    int series = 0;
    double ready = 0;
    double driftPods = 0;
    for (String line : metrics.split("\n")) {
      Map.Entry<String, Double> sample = sample(line);
      if (sample == null) {
        continue;
      }
      if (sample.getKey().equals("routesync_service_ready_endpoints")) {
        series++;
        ready += sample.getValue();
      } else if (sample.getKey().equals("routesync_drift_pods")) {
        driftPods += sample.getValue();
      }
    }
    JsonNode list = drift.get("drift");
    return new Report(
        drift.path("detector").asString(""),
        list == null ? 0 : list.size(),
        driftPods,
        series,
        ready);
  }

  /** A Prometheus sample line's metric name and value, or null for a comment. */
  private static Map.Entry<String, Double> sample(String line) {
    if (line.isEmpty() || line.startsWith("#")) {
      return null;
    }
    int end = line.indexOf('{');
    if (end < 0) {
      end = line.indexOf(' ');
    }
    if (end < 0) {
      return null;
    }
    return Map.entry(
        line.substring(0, end), Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
  }

  /** One HTTP/1.1 GET on the agent's Unix socket (the JDK client speaks TCP only). */
  private static String socketGet(Path socket, String path) throws Exception {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
      channel.write(
          ByteBuffer.wrap(
              ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.ISO_8859_1)));
      // Blocking reads until the agent closes (Connection: close); it answers within
      // milliseconds, and an agent gone closes the socket too.
      java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
      ByteBuffer in = ByteBuffer.allocate(64 * 1024);
      while (channel.read(in) >= 0) {
        received.write(in.array(), 0, in.position());
        in.clear();
      }
      String answer = received.toString(StandardCharsets.UTF_8);
      if (!answer.startsWith("HTTP/1.1 200 ")) {
        throw new IllegalStateException(
            path + " on " + socket + " answered " + answer.lines().findFirst().orElse("nothing"));
      }
      return answer.substring(answer.indexOf("\r\n\r\n") + 4);
    }
  }

  private static String get(HttpClient http, int port, String path) throws Exception {
    HttpResponse<String> response;
    try {
      response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      // An agent gone (out of its heap, say) is a result line, not the end of the run.
      throw new IllegalStateException("the agent did not answer " + path + ": " + e, e);
    }
    if (response.statusCode() != 200) {
      throw new IllegalStateException(path + " answered " + response.statusCode());
    }
    return response.body();
  }
}
