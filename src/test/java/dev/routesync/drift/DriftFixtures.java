package dev.routesync.drift;

import dev.routesync.rules.ControllerSlices;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import java.util.Map;

/**
 * Pods, Services and EndpointSlices as the API server and the EndpointSlice controller write them,
 * for the detector's tests: the seed's {@code quote} Service (port 80, {@code targetPort: http})
 * and pods declaring {@code http} (the old Deployment) or {@code http-api} (the rename).
 */
final class DriftFixtures {

  static final String NAMESPACE = "shop";
  static final String NODE = "node-a";

  private DriftFixtures() {}

  /** A Running pod with one container declaring {@code portName} (8080), Ready or not. */
  static Pod pod(String name, String uid, String node, String portName, boolean ready) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(name)
        .withUid(uid)
        .withResourceVersion("1")
        .withLabels(Map.of("app", "quote", "pod-template-hash", "abc"))
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("quote")
        .withImage("quote:1")
        .addNewPort()
        .withName(portName)
        .withContainerPort(8080)
        .endPort()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP("10.0.0." + (Math.abs(name.hashCode()) % 250 + 1))
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  /** The same pod with the Ready condition set. */
  static Pod withReady(Pod pod, boolean ready) {
    return new PodBuilder(pod)
        .editStatus()
        .editFirstCondition()
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  /** A mesh-managed Service selecting {@code app=quote}, port 80 to the named {@code target}. */
  static Service quote(String target, String resourceVersion) {
    return service("quote", Map.of("app", "quote"), target, resourceVersion);
  }

  static Service service(
      String name, Map<String, String> selector, String target, String resourceVersion) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(name)
        .withResourceVersion(resourceVersion)
        .withLabels(Map.of("mesh-managed", "true"))
        .endMetadata()
        .withNewSpec()
        .withSelector(selector)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withTargetPort(new IntOrString(target))
        .endPort()
        .endSpec()
        .build();
  }

  /**
   * The controller's slice of {@code service}: every pod listed ready, with port {@code portName}
   * (8080), or with {@code ports: null} when {@code portName} is null (no pod resolved the port).
   */
  static EndpointSlice slice(String service, String name, String portName, List<Pod> pods) {
    EndpointSliceBuilder builder =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace(NAMESPACE)
            .withName(name)
            .withLabels(
                Map.of(
                    "kubernetes.io/service-name",
                    service,
                    ControllerSlices.MANAGED_BY_LABEL,
                    ControllerSlices.CONTROLLER,
                    "mesh-managed",
                    "true"))
            .endMetadata()
            .withAddressType("IPv4")
            .withEndpoints(
                pods.stream()
                    .map(
                        pod ->
                            new EndpointBuilder()
                                .withAddresses(pod.getStatus().getPodIP())
                                .withNodeName(pod.getSpec().getNodeName())
                                .withTargetRef(
                                    new ObjectReferenceBuilder()
                                        .withKind("Pod")
                                        .withNamespace(NAMESPACE)
                                        .withName(pod.getMetadata().getName())
                                        .withUid(pod.getMetadata().getUid())
                                        .build())
                                .withNewConditions()
                                .withReady(true)
                                .withServing(true)
                                .withTerminating(false)
                                .endConditions()
                                .build())
                    .toList());
    if (portName != null) {
      builder.withPorts(
          new EndpointPortBuilder().withName(portName).withPort(8080).withProtocol("TCP").build());
    }
    return builder.build();
  }
}
