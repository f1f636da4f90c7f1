package dev.routesync.lint;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.List;
import java.util.Map;

/**
 * Refuses the names lint prints when they are longer than Kubernetes allows. Findings repeat names,
 * one finding per (Service port, workload), so a name's length multiplies the report: 2,000 ports
 * whose {@code targetPort} is one 16 KiB YAML anchor (an 81 KB file; aliases of scalars cost the
 * reader nothing) made a 100 MB report, and a 10 MiB document would make terabytes. The API server
 * refuses every such object, so lint does too (exit 2), naming the field and its length, never
 * echoing it.
 */
final class NameLengths {

  /** {@code IsDNS1123Label}: Service, namespace, Service port and container names. */
  static final int DNS_LABEL = 63;

  /** {@code IsDNS1123Subdomain}: a workload's name. */
  static final int DNS_SUBDOMAIN = 253;

  /** {@code IsValidPortName} (IANA_SVC_NAME): a named targetPort and a container port's name. */
  static final int PORT_NAME = 15;

  /** A label key: a 253-character prefix, '/', a 63-character name. */
  static final int LABEL_KEY = 317;

  /** A label value; also bounds a protocol, which Kubernetes limits to TCP, UDP and SCTP. */
  static final int LABEL_VALUE = 63;

  private NameLengths() {}

  static void checkService(Manifest manifest, Service service) throws LintInputException {
    check(manifest, "metadata.name", manifest.name(), DNS_LABEL);
    check(manifest, "metadata.namespace", manifest.namespace(), DNS_LABEL);
    if (service.getSpec() == null) {
      return;
    }
    Map<String, String> selector = service.getSpec().getSelector();
    if (selector != null) {
      for (Map.Entry<String, String> label : selector.entrySet()) {
        check(manifest, "spec.selector key", label.getKey(), LABEL_KEY);
        check(manifest, "spec.selector value", label.getValue(), LABEL_VALUE);
      }
    }
    List<ServicePort> ports = service.getSpec().getPorts();
    for (int i = 0; ports != null && i < ports.size(); i++) {
      ServicePort port = ports.get(i);
      if (port == null) {
        continue;
      }
      String at = "spec.ports[" + i + "]";
      check(manifest, at + ".name", port.getName(), DNS_LABEL);
      check(manifest, at + ".protocol", port.getProtocol(), LABEL_VALUE);
      IntOrString target = port.getTargetPort();
      check(manifest, at + ".targetPort", target == null ? null : target.getStrVal(), PORT_NAME);
    }
  }

  static void checkWorkload(Manifest manifest, PodSpec spec) throws LintInputException {
    check(manifest, "metadata.name", manifest.name(), DNS_SUBDOMAIN);
    check(manifest, "metadata.namespace", manifest.namespace(), DNS_LABEL);
    if (spec == null) {
      return;
    }
    checkContainers(manifest, "containers", spec.getContainers());
    checkContainers(manifest, "initContainers", spec.getInitContainers());
  }

  private static void checkContainers(Manifest manifest, String field, List<Container> containers)
      throws LintInputException {
    for (int i = 0; containers != null && i < containers.size(); i++) {
      Container container = containers.get(i);
      if (container == null) {
        continue;
      }
      String at = field + "[" + i + "]";
      check(manifest, at + ".name", container.getName(), DNS_LABEL);
      List<ContainerPort> ports = container.getPorts();
      for (int j = 0; ports != null && j < ports.size(); j++) {
        ContainerPort port = ports.get(j);
        if (port != null) {
          check(manifest, at + ".ports[" + j + "].name", port.getName(), PORT_NAME);
          check(manifest, at + ".ports[" + j + "].protocol", port.getProtocol(), LABEL_VALUE);
        }
      }
    }
  }

  private static void check(Manifest manifest, String field, String value, int limit)
      throws LintInputException {
    if (value != null && value.length() > limit) {
      throw new LintInputException(
          manifest.file(),
          manifest.line(),
          "cannot read "
              + manifest.kind()
              + ": "
              + field
              + " has "
              + value.length()
              + " characters, and Kubernetes allows at most "
              + limit);
    }
  }
}
