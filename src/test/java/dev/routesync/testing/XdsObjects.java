package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes objects for the xDS tests: Services that the agent selects ({@link Slices#MESH_LABEL},
 * which the EndpointSlice controller copies to their slices), with named target ports, so the agent
 * must map a Service port to each endpoint's own port by name.
 */
public final class XdsObjects {

  private XdsObjects() {}

  /** A declared Service port: its name, number and the named {@code targetPort} it maps to. */
  public record ServicePortSpec(String name, int port, String targetPort) {}

  /** A Service port whose named target port has the same name ({@code http → targetPort http}). */
  public static ServicePortSpec port(String name, int number) {
    return new ServicePortSpec(name, number, name);
  }

  /** A ClusterIP Service in {@code namespace} with these ports, selected by the agent. */
  public static Service service(String namespace, String name, ServicePortSpec... ports) {
    List<io.fabric8.kubernetes.api.model.ServicePort> declared = new ArrayList<>();
    for (ServicePortSpec port : ports) {
      declared.add(
          new ServicePortBuilder()
              .withName(port.name())
              .withPort(port.port())
              .withProtocol("TCP")
              .withTargetPort(new IntOrString(port.targetPort()))
              .build());
    }
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(Map.of(Slices.MESH_LABEL, "true"))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(Map.of("app", name))
        .withPorts(declared)
        .endSpec()
        .build();
  }

  /**
   * A slice of {@code service} whose pods serve its port {@code http} on {@code targetPort} (one
   * slice per distinct resolved port, as the EndpointSlice controller writes them).
   */
  public static EndpointSlice slice(
      String namespace, String name, String service, int targetPort, List<Slices.Pod> pods) {
    return Slices.slice(namespace, name, service, true, targetPort, pods);
  }

  /** As {@link #slice}, with a second named port {@code extraName} on {@code extraPort}. */
  public static EndpointSlice slice(
      String namespace,
      String name,
      String service,
      int targetPort,
      String extraName,
      int extraPort,
      List<Slices.Pod> pods) {
    EndpointSlice slice = slice(namespace, name, service, targetPort, pods);
    List<io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort> ports =
        new ArrayList<>(slice.getPorts());
    ports.add(
        new EndpointPortBuilder()
            .withName(extraName)
            .withPort(extraPort)
            .withProtocol("TCP")
            .build());
    slice.setPorts(ports);
    return slice;
  }
}
