package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Which Services the EndpointSlice controller fills, and which pods each one selects. */
public final class ServiceSelection {

  private ServiceSelection() {}

  /**
   * The controller's: a Service with a non-empty selector that is not {@code ExternalName}.
   * Services without a selector have their slices written by someone else (or by hand).
   */
  public static boolean isControllerManaged(Service service) {
    ServiceSpec spec = service == null ? null : service.getSpec();
    if (spec == null || "ExternalName".equals(spec.getType())) {
      return false;
    }
    return spec.getSelector() != null && !spec.getSelector().isEmpty();
  }

  /**
   * The Service selects a pod (or a pod template): it is the controller's, in the same namespace,
   * and its selector is a subset of the labels.
   */
  public static boolean selects(Service service, String namespace, Map<String, String> labels) {
    if (!isControllerManaged(service) || service.getMetadata() == null) {
      return false;
    }
    if (!Objects.equals(service.getMetadata().getNamespace(), namespace)) {
      return false;
    }
    return selectorMatches(service.getSpec().getSelector(), labels);
  }

  /** A Service selector (equality only) is a subset of {@code labels}. */
  public static boolean selectorMatches(Map<String, String> selector, Map<String, String> labels) {
    if (selector == null || selector.isEmpty()) {
      return false;
    }
    Map<String, String> have = labels == null ? Map.of() : labels;
    for (Map.Entry<String, String> wanted : selector.entrySet()) {
      if (!Objects.equals(have.get(wanted.getKey()), wanted.getValue())) {
        return false;
      }
    }
    return true;
  }

  /** {@code spec.publishNotReadyAddresses}: the controller then lists every pod as ready. */
  public static boolean publishesNotReady(Service service) {
    ServiceSpec spec = service == null ? null : service.getSpec();
    return spec != null && Boolean.TRUE.equals(spec.getPublishNotReadyAddresses());
  }

  /** The Service's ports, never null. */
  public static List<ServicePort> portsOf(Service service) {
    ServiceSpec spec = service == null ? null : service.getSpec();
    List<ServicePort> ports = spec == null ? null : spec.getPorts();
    return ports == null ? List.of() : ports.stream().filter(Objects::nonNull).toList();
  }

  /** The name a Service port's endpoints carry in a slice: {@code ""} for an unnamed port. */
  public static String portName(ServicePort port) {
    return port == null || port.getName() == null ? "" : port.getName();
  }
}
