package dev.routesync.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.Agent;
import dev.routesync.config.AgentConfig;
import dev.routesync.config.Source;
import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.Http1;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded demo, as {@code routesync demo} runs it: the agent reads the generated kubeconfig
 * file (the same path as a real cluster's), filters and churns as documented.
 */
class DemoClusterTest {

  @TempDir Path dir;

  @Test
  void agentServesTheDemoThroughItsKubeconfigAndFollowsTheChurn() throws Exception {
    int adminPort;
    try (ServerSocket probe = new ServerSocket(0)) {
      adminPort = probe.getLocalPort();
    }
    try (DemoCluster cluster = DemoCluster.start()) {
      Path kubeconfig = cluster.writeKubeconfig(dir);
      AgentConfig config =
          new AgentConfig(
                  Source.ENDPOINTSLICES,
                  Optional.of(kubeconfig),
                  WatchSettings.of(List.of(), "mesh-managed=true"),
                  CoalescerSettings.defaults(),
                  dir.resolve("demo.sock"),
                  "127.0.0.1",
                  adminPort,
                  "")
              .withZone("zone-a");
      Agent agent = Agent.start(config).await(20, TimeUnit.SECONDS);
      try {
        agent.initialSync().await(10, TimeUnit.SECONDS);
        var table = agent.table().current();
        assertThat(table.services())
            .extracting(s -> s.key().toString())
            .containsExactly(
                "shop/cart", "shop/checkout", "shop/payments", "shop/quote", "shop/search");
        // The zoned Service (PreferClose): this node, in zone-a, routes to search-1 first.
        var search = table.get(new dev.routesync.table.ServiceKey("shop", "search")).orElseThrow();
        assertThat(search.topology().mode())
            .isEqualTo(dev.routesync.table.TopologyDecision.Mode.SAME_ZONE);
        assertThat(search.endpoints().stream().filter(search.topology()::selects))
            .extracting(e -> e.pod())
            .containsExactly("search-1");
        // cart-3 is not ready; payments-2 sits in two slices and is published once.
        assertThat(ips(agent, "cart")).containsExactly("10.1.0.11", "10.1.0.12");
        assertThat(ips(agent, "payments")).containsExactly("10.1.2.11", "10.1.2.12", "10.1.2.13");

        cluster.startChurn(100);
        // Step 0 makes cart-3 ready; step 2 starts a rolling replacement of checkout.
        await().atMost(Duration.ofSeconds(10)).until(() -> ips(agent, "cart").size() == 3);
        // The rolled-in pod replaces checkout-1; its terminating predecessor is never published
        // while other pods are ready.
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> pods(agent, "checkout").contains("checkout-100"));
        assertThat(pods(agent, "checkout")).hasSize(3);

        // HTTP/1.1 with a deadline on the whole exchange: this GET once hung a CI run (issue 8
        // A.1).
        HttpResponse<String> metrics = Http1.get("http://127.0.0.1:" + adminPort + "/metrics");
        assertThat(metrics.body())
            .contains(
                "routesync_table_version",
                "routesync_services 5.0",
                "routesync_events_total{kind=\"EndpointSlice\",type=\"updated\"}",
                "routesync_batches_total",
                "routesync_batch_size_count",
                "routesync_debounce_wait_seconds_count",
                "routesync_flush_duration_seconds_count",
                "routesync_publish_latency_seconds_count",
                "routesync_network_programming_duration_seconds_bucket",
                // One initial list per watch: EndpointSlices and Services.
                "routesync_relists_total{reason=\"initial\"} 2.0",
                "routesync_api_connected 1.0",
                "routesync_api_disconnected_seconds 0.0",
                "routesync_endpoints");
        HttpResponse<String> ready = Http1.get("http://127.0.0.1:" + adminPort + "/readyz");
        assertThat(ready.statusCode()).isEqualTo(200);
      } finally {
        cluster.stopChurn();
        agent.stop().await(20, TimeUnit.SECONDS);
      }
    }
  }

  private static List<String> pods(Agent agent, String service) {
    return endpoints(agent, service, Endpoint::pod);
  }

  private static List<String> ips(Agent agent, String service) {
    return endpoints(agent, service, Endpoint::ip);
  }

  private static List<String> endpoints(
      Agent agent, String service, java.util.function.Function<Endpoint, String> field) {
    return agent
        .table()
        .current()
        .get(new ServiceKey("shop", service))
        .orElseThrow()
        .endpoints()
        .stream()
        .map(field)
        .toList();
  }
}
