package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Resolves a Service port's {@code targetPort} for one pod exactly as the EndpointSlice
 * controller's {@code FindPort} does:
 *
 * <ul>
 *   <li>a number is used as is (no container needs to declare it);
 *   <li>omitted, 0 or {@code ""} means the Service's {@code port} (the API server's defaulting);
 *   <li>a name picks the <b>first</b> container port, in {@code spec.containers} order, whose name
 *       <b>and</b> protocol match (protocol defaults to TCP on both sides);
 *   <li>with {@link PortSearch#CONTAINERS_AND_SIDECARS} (Kubernetes 1.32+), init containers with
 *       {@code restartPolicy: Always} are searched after the containers.
 * </ul>
 */
public final class TargetPorts {

  /** The protocol Kubernetes defaults both a Service port and a container port to. */
  public static final String DEFAULT_PROTOCOL = "TCP";

  private TargetPorts() {}

  public static PortResolution resolve(ServicePort servicePort, PodSpec pod, PortSearch search) {
    IntOrString target = servicePort == null ? null : servicePort.getTargetPort();
    int servicePortNumber = servicePort == null ? 0 : orZero(servicePort.getPort());
    if (target == null || isZeroOrEmpty(target)) {
      return new PortResolution.Resolved(
          servicePortNumber, PortResolution.Via.SERVICE_PORT, Optional.empty());
    }
    if (target.getIntVal() != null) {
      return new PortResolution.Resolved(
          target.getIntVal(), PortResolution.Via.NUMBER, Optional.empty());
    }
    String name = target.getStrVal();
    String protocol = protocolOf(servicePort);
    List<DeclaredPort> declared = declared(pod, search);
    DeclaredPort sameNameOtherProtocol = null;
    for (DeclaredPort port : declared) {
      if (port.name().equals(name)) {
        if (port.protocol().equals(protocol)) {
          return new PortResolution.Resolved(
              port.number(),
              port.sidecar() ? PortResolution.Via.SIDECAR : PortResolution.Via.CONTAINER,
              Optional.of(port));
        }
        if (sameNameOtherProtocol == null) {
          sameNameOtherProtocol = port;
        }
      }
    }
    if (sameNameOtherProtocol != null) {
      return new PortResolution.ProtocolMismatch(name, protocol, sameNameOtherProtocol);
    }
    return new PortResolution.NotFound(name, declared, Names.closest(name, namesOf(declared)));
  }

  /** The Service port's protocol, TCP when omitted. */
  public static String protocolOf(ServicePort port) {
    String protocol = port == null ? null : port.getProtocol();
    return protocol == null || protocol.isEmpty() ? DEFAULT_PROTOCOL : protocol;
  }

  /**
   * Every port the pod declares, in the order {@code search} looks at them: the containers, then
   * (when searched) the restartable init containers.
   */
  public static List<DeclaredPort> declared(PodSpec pod, PortSearch search) {
    List<DeclaredPort> ports = new ArrayList<>();
    if (pod == null) {
      return ports;
    }
    addPorts(pod.getContainers(), false, ports);
    if (search.searchesSidecars() && pod.getInitContainers() != null) {
      List<Container> sidecars = new ArrayList<>();
      for (Container init : pod.getInitContainers()) {
        if (init != null && "Always".equals(init.getRestartPolicy())) {
          sidecars.add(init);
        }
      }
      addPorts(sidecars, true, ports);
    }
    return ports;
  }

  /** The distinct non-empty names among {@code ports}, in order. */
  public static List<String> namesOf(List<DeclaredPort> ports) {
    List<String> names = new ArrayList<>();
    for (DeclaredPort port : ports) {
      if (!port.name().isEmpty() && !names.contains(port.name())) {
        names.add(port.name());
      }
    }
    return names;
  }

  private static void addPorts(
      List<Container> containers, boolean sidecar, List<DeclaredPort> out) {
    if (containers == null) {
      return;
    }
    for (Container container : containers) {
      if (container == null || container.getPorts() == null) {
        continue;
      }
      String containerName = container.getName() == null ? "" : container.getName();
      for (ContainerPort port : container.getPorts()) {
        if (port == null) {
          continue;
        }
        String protocol = port.getProtocol();
        out.add(
            new DeclaredPort(
                containerName,
                sidecar,
                port.getName() == null ? "" : port.getName(),
                orZero(port.getContainerPort()),
                protocol == null || protocol.isEmpty() ? DEFAULT_PROTOCOL : protocol));
      }
    }
  }

  private static boolean isZeroOrEmpty(IntOrString target) {
    if (target.getIntVal() != null) {
      return target.getIntVal() == 0;
    }
    return target.getStrVal() == null || target.getStrVal().isEmpty();
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
