package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ServiceEndpoints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's first list, paged by the real API server: more opted-in EndpointSlices than one page
 * holds (the agent asks for 50 at a time), so the list comes in three pages joined by {@code
 * continue} tokens, and the table holds every Service of every page. The slices are written by the
 * test, not a controller (managed-by another name, which the EndpointSlice controller leaves
 * alone): a hundred and twenty Deployments would cost minutes for the same pages.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PagedListIT {

  /** Over two pages of the agent's list (WatchedKind.LIST_PAGE, 50). */
  private static final int SERVICES = 120;

  private static final Pattern PAGE = Pattern.compile("[?&]limit=50(&|$)");

  @TempDir Path dir;
  @RegisterExtension final ClusterNamespace ns = new ClusterNamespace("paged");

  @Test
  void aListOfThreePagesJoinedByContinueTokensFillsTheTable() throws Exception {
    Map<String, String> expected = new TreeMap<>();
    for (int i = 0; i < SERVICES; i++) {
      String service = String.format("svc-%03d", i);
      // 198.18.240.0/20: inside the test range, beyond the Pod ranges of the first Nodes.
      String ip = "198.18." + (240 + i / 250) + "." + (1 + i % 250);
      expected.put(service, ip);
      ns.client().discovery().v1().endpointSlices().resource(slice(service, ip)).create();
    }
    ApiServerLog log = new ApiServerLog(ns.cluster());
    log.logRequests();
    long mark = log.mark();

    try (AgentProcess agent =
        AgentProcess.start(ns.cluster(), dir, ns.cluster().kubeconfig(), ns.name()).awaitReady()) {
      ListResponse list = agent.grpc().list(ns.name());
      Map<String, String> served = new TreeMap<>();
      for (ServiceEndpoints service : list.getServicesList()) {
        assertThat(service.getEndpointsList()).as(service.getName()).hasSize(1);
        served.put(service.getName(), service.getEndpoints(0).getIp());
      }
      assertThat(served).isEqualTo(expected);

      // The API server logs a request when it ends: the agent's pages are there by now.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(log.lists(mark, ns.name()))
                      .as("the agent's lists of the namespace's EndpointSlices")
                      .anyMatch(uri -> PAGE.matcher(uri).find() && !uri.contains("continue="))
                      .anyMatch(uri -> PAGE.matcher(uri).find() && uri.contains("continue=")));
    }
  }

  private EndpointSlice slice(String service, String ip) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(ns.name())
        .withName(service + "-e2e")
        .withLabels(
            Map.of(
                "kubernetes.io/service-name",
                service,
                "endpointslice.kubernetes.io/managed-by",
                "e2e.routesync.dev",
                Workloads.OPT_IN_LABEL,
                "true"))
        .endMetadata()
        .withAddressType("IPv4")
        .addNewEndpoint()
        .withAddresses(ip)
        .withNewConditions()
        .withReady(true)
        .endConditions()
        .endEndpoint()
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort()
        .build();
  }
}
