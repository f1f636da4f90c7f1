package dev.routesync.gate;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The seed's objects for the gate's tests: Services, pods as the kubelet reports them, and slices
 * exactly as the EndpointSlice controller writes them (its labels; one slice per resolved port set;
 * a pod that resolves no port listed ready in a slice with {@code ports: null}; endpoints named by
 * the pod's uid).
 */
final class GateObjects {

  static final String NS = "shop";

  private GateObjects() {}

  static ServicePort namedPort(String name, int port, String target) {
    return new ServicePortBuilder()
        .withName(name)
        .withPort(port)
        .withTargetPort(new IntOrString(target))
        .withProtocol("TCP")
        .build();
  }

  static ServicePort namedPort(String name, int port, String target, String protocol) {
    return new ServicePortBuilder(namedPort(name, port, target)).withProtocol(protocol).build();
  }

  /** A ClusterIP Service selecting {@code app=<selectorApp>}, labelled {@code tier=<tier>}. */
  static Service service(String name, String selectorApp, String tier, ServicePort... ports) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(name)
        .withLabels(Map.of("tier", tier))
        .endMetadata()
        .withNewSpec()
        .withSelector(Map.of("app", selectorApp))
        .withPorts(Arrays.asList(ports))
        .endSpec()
        .build();
  }

  /** The seed's Service: {@code quote}, port 80, {@code targetPort: http}. */
  static Service quote() {
    return service("quote", "quote", "front", namedPort("http", 80, "http"));
  }

  static ContainerPort containerPort(String name, int number) {
    return containerPort(name, number, "TCP");
  }

  static ContainerPort containerPort(String name, int number, String protocol) {
    return new ContainerPortBuilder()
        .withName(name)
        .withContainerPort(number)
        .withProtocol(protocol)
        .build();
  }

  /** A running pod with an IP, Ready or not, whose one container declares {@code ports}. */
  static Pod pod(String name, String app, String ip, boolean ready, ContainerPort... ports) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(name)
        .withLabels(Map.of("app", app))
        .endMetadata()
        .withNewSpec()
        .withNodeName("node-a")
        .addNewContainer()
        .withName("app")
        .withImage("quote:1")
        .withPorts(Arrays.asList(ports))
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP(ip)
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .endStatus()
        .build();
  }

  static Pod withUid(Pod pod, String uid) {
    return new PodBuilder(pod).editMetadata().withUid(uid).endMetadata().build();
  }

  static EndpointPort slicePort(String name, int number) {
    return new EndpointPortBuilder().withName(name).withPort(number).withProtocol("TCP").build();
  }

  /**
   * A slice of {@code service} with {@code ports} ({@code null}: the pods resolved no port),
   * listing {@code pods} by their uids (which must be the API server's, read back). Ready as the
   * pods are.
   */
  static EndpointSlice slice(
      String name, String service, List<EndpointPort> ports, List<Pod> pods) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/service-name", service);
    labels.put("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io");
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withAddressType("IPv4")
        .withPorts(ports)
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
                                    .withNamespace(NS)
                                    .withName(pod.getMetadata().getName())
                                    .withUid(pod.getMetadata().getUid())
                                    .build())
                            .withNewConditions()
                            .withReady(dev.routesync.rules.PodStates.isReady(pod))
                            .withServing(dev.routesync.rules.PodStates.isReady(pod))
                            .withTerminating(false)
                            .endConditions()
                            .build())
                .toList())
        .build();
  }
}
