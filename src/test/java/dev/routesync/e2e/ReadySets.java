package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.Port;
import dev.routesync.api.v1.ServiceEndpoints;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The same set, {@code ip:port}, read three ways: from the real EndpointSlices (what kube-proxy
 * would route to), from the agent's answer, and from the Pods themselves.
 */
final class ReadySets {

  private ReadySets() {}

  /**
   * Waits for app=NAME's rollout, checks it has {@code replicas} Ready Pods (container port 8080),
   * then waits up to 30 s for the real slices to hold exactly those; returns them.
   */
  static Set<String> awaitSliced(
      KubernetesClient client, String namespace, String app, Duration rollout, int replicas) {
    Workloads.awaitRolledOut(client, namespace, app, rollout);
    Set<String> pods = fromPods(client, namespace, app, 8080);
    assertThat(pods).hasSize(replicas);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> fromSlices(slices(client, namespace, app)).equals(pods));
    return pods;
  }

  static List<EndpointSlice> slices(KubernetesClient client, String namespace, String service) {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(namespace)
        .withLabel("kubernetes.io/service-name", service)
        .list()
        .getItems();
  }

  /** Ready endpoints ({@code ready} true or absent) of every slice of the Service, merged. */
  static Set<String> fromSlices(List<EndpointSlice> slices) {
    Set<String> ready = new TreeSet<>();
    for (EndpointSlice slice : slices) {
      // The real controller writes `endpoints: null` for a Service with no endpoints.
      for (var endpoint :
          slice.getEndpoints() == null
              ? List.<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint>of()
              : slice.getEndpoints()) {
        var conditions = endpoint.getConditions();
        if (conditions != null && Boolean.FALSE.equals(conditions.getReady())) {
          continue;
        }
        for (String ip : endpoint.getAddresses()) {
          for (EndpointPort port :
              slice.getPorts() == null ? List.<EndpointPort>of() : slice.getPorts()) {
            ready.add(ip + ":" + port.getPort());
          }
        }
      }
    }
    return ready;
  }

  /** Every endpoint the agent publishes for the Service, with each of its ports. */
  static Set<String> fromAgent(ServiceEndpoints service) {
    Set<String> published = new TreeSet<>();
    for (Endpoint endpoint : service.getEndpointsList()) {
      for (Port port : endpoint.getPortsList()) {
        published.add(endpoint.getIp() + ":" + port.getPort());
      }
    }
    return published;
  }

  /** Pods of app=NAME that are Ready and not terminating, with the container port. */
  static Set<String> fromPods(KubernetesClient client, String namespace, String app, int port) {
    Set<String> ready = new TreeSet<>();
    for (Pod pod : client.pods().inNamespace(namespace).withLabel("app", app).list().getItems()) {
      boolean isReady =
          pod.getStatus() != null
              && pod.getStatus().getConditions() != null
              && pod.getStatus().getConditions().stream()
                  .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
      if (isReady
          && pod.getMetadata().getDeletionTimestamp() == null
          && pod.getStatus().getPodIP() != null) {
        ready.add(pod.getStatus().getPodIP() + ":" + port);
      }
    }
    return ready;
  }
}
