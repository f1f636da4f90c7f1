package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.drift.DriftObserver;
import dev.routesync.kube.events.EventResult;
import dev.routesync.kube.translate.SkipReason;
import dev.routesync.kube.watch.RelistReason;
import dev.routesync.kube.watch.RestartReason;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.kube.watch.WatchObserver;
import dev.routesync.rules.MissingReason;
import dev.routesync.serve.GrpcMethod;
import dev.routesync.serve.WatchLag;
import dev.routesync.sidecars.PeerIds;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.sync.Batch;
import dev.routesync.table.Freshness;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.xds.XdsClient;
import dev.routesync.xds.XdsObserver;
import dev.routesync.xds.XdsType;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.grpc.common.GrpcStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What dashboards, the PrometheusRule in daemonset/monitoring/ and alerts see: every routesync
 * series, with its labels, help text and type, after every label value the agent emits has been
 * recorded once. Values are left out; names, label names and values, descriptions and bucket
 * layouts must stay as in {@code routesync-series.txt}. A characterization test: the expected list
 * was scraped from the agent before its observation was typed, and must not change with it.
 */
class MetricsSeriesTest {

  private static final List<String> KINDS = List.of("EndpointSlice", "Endpoints", "Pod", "Service");

  @Test
  void everySeriesKeepsItsNameLabelsAndHelp() throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Metrics metrics = new Metrics(registry);
    metrics.bindTable(new TableWriter(Clock.systemUTC(), 16));
    metrics.bindFreshness(Freshness.unwatched(TableTrust.synced()));
    for (String kind : KINDS) {
      WatchObserver watch = metrics.watch(kind);
      for (WatchEvent.Type type : WatchEvent.Type.values()) {
        watch.event(type);
      }
      for (RelistReason reason : RelistReason.values()) {
        watch.relist(reason);
      }
      for (RestartReason reason : RestartReason.values()) {
        watch.restarted(reason);
      }
      watch.bookmark();
      watch.connected(true);
    }
    metrics.watch(KINDS.get(0)).bindDisconnected(() -> 0);
    for (SkipReason reason : SkipReason.values()) {
      metrics.skips().skipped(reason);
    }
    for (EventResult result : EventResult.values()) {
      metrics.kubernetesEvents().recorded(result);
    }
    for (Batch.Cause cause : Batch.Cause.values()) {
      metrics.sync().batch(cause, 3, 1_000_000);
    }
    metrics.sync().flushed(1_000_000);
    metrics.sync().publishLatency(1_000_000);
    metrics.sync().networkProgramming(Duration.ofMillis(300));
    for (GrpcMethod method : GrpcMethod.values()) {
      for (GrpcStatus status : GrpcStatus.values()) {
        metrics.serve().grpcCall(method, status);
      }
      metrics.serve().grpcAbortedByClient(method);
    }
    for (dev.routesync.serve.Listener listener : dev.routesync.serve.Listener.values()) {
      metrics.serve().connectionsOpen(listener, () -> 1);
      metrics.serve().connectionRejected(listener);
      for (dev.routesync.serve.CloseReason reason : dev.routesync.serve.CloseReason.values()) {
        metrics.serve().connectionClosed(listener, reason);
      }
    }
    metrics.serve().socketConnections(1000, 1); // a uid's own series
    metrics.serve().socketConnections(-1, 1); // credentials unreadable
    for (dev.routesync.serve.SocketRefusal why : dev.routesync.serve.SocketRefusal.values()) {
      metrics.serve().socketRefused(1000, why); // a uid's own series
      metrics.serve().socketRefused(-1, why); // credentials unreadable
    }
    for (dev.routesync.serve.Listener listener : dev.routesync.serve.Listener.values()) {
      metrics.serve().bodyTimedOut(listener);
    }
    for (dev.routesync.serve.DebugRefusal why : dev.routesync.serve.DebugRefusal.values()) {
      metrics.serve().debugRequestRefused(why);
    }
    DriftObserver drift = metrics.drift();
    DriftObserver.PortSeries quote = new DriftObserver.PortSeries("shop", "quote", "http");
    for (MissingReason reason : MissingReason.values()) {
      drift.driftPods(quote, reason, 1);
    }
    drift.readyEndpoints(quote, 8);
    metrics.serve().watchSubscribers(1);
    metrics.serve().watchMessage(2);
    for (WatchLag how : WatchLag.values()) {
      metrics.serve().watchLagged(how);
    }
    XdsObserver xds = metrics.xds();
    for (XdsClient client : XdsClient.values()) {
      xds.streams(client, false, 1);
      xds.streams(client, true, 1);
      for (XdsType type : XdsType.values()) {
        xds.subscriptions(type, client, 1);
      }
    }
    for (XdsType type : XdsType.values()) {
      xds.response(type, 2);
      xds.nack(type);
      xds.pushed(type, Duration.ofMillis(3));
    }

    metrics
        .bindHeapBudget(HeapBudget.of(HeapBudget.DEFAULT_SHARE).orElseThrow(), () -> false)
        .increment();

    Sidecars sidecars = new Sidecars();
    metrics.bindClients(sidecars);
    for (Protocol protocol : Protocol.values()) {
      // One acknowledged change per protocol: each has its own propagation series.
      sidecars
          .open(protocol, PeerIds.UNKNOWN, List.of("eds"))
          .delivered(0, 2, System.currentTimeMillis() - 100);
    }

    String actual = String.join("\n", withoutValues(registry.scrape()));
    if (System.getProperty("series.write") != null) {
      // mvn test -Dtest=MetricsSeriesTest -Dseries.write=path: writes the scrape as it is now, to
      // review with git diff after a deliberate change of series.
      Files.writeString(Path.of(System.getProperty("series.write")), actual + "\n");
    }
    assertThat(actual).isEqualTo(String.join("\n", expected()));
  }

  /** Comment lines (HELP, TYPE) whole; series lines without their sample value; sorted. */
  private static TreeSet<String> withoutValues(String scrape) {
    TreeSet<String> lines = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      lines.add(line.startsWith("#") ? line : line.substring(0, line.lastIndexOf(' ')));
    }
    return lines;
  }

  private static TreeSet<String> expected() throws IOException {
    try (InputStream in =
        Objects.requireNonNull(
            MetricsSeriesTest.class.getResourceAsStream("routesync-series.txt"))) {
      TreeSet<String> lines = new TreeSet<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isBlank()) {
          lines.add(line);
        }
      }
      return lines;
    }
  }
}
