package dev.routesync.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * What the agent's drift detector says, from its admin port: {@code GET /v1/drift} (whether it
 * runs, and the drifts it reports) and its gauges on {@code /metrics}: {@code routesync_drift_pods}
 * (sum) and {@code routesync_service_ready_endpoints} (one series per Service with pods on this
 * node, so their count shows that the detector matched this node's pods to their Services, and
 * their sum that it read those Services' slices).
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
  static Report await(HttpClient http, int adminPort, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Report report = read(http, adminPort);
    while ("starting".equals(report.detector()) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      report = read(http, adminPort);
    }
    return report;
  }

  static Report read(HttpClient http, int adminPort) throws Exception {
    JsonNode drift = JSON.readTree(get(http, adminPort, "/v1/drift"));
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
