package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Checks one pod against one Service port: the question the drift detector and {@code routesync
 * gate} both ask. What the slices say wins: a pod listed ready with the port is never missing,
 * whatever the rules predict.
 */
public final class EndpointCheck {

  private EndpointCheck() {}

  /**
   * Why {@code pod}, which the caller found expected ({@link PodStates#isExpected}), is not among
   * {@code readyUidsWithPort} (from {@link ControllerSlices#readyUidsWithPort}); empty when it is.
   */
  public static Optional<Missing> check(
      Pod pod, ServicePort port, Set<String> readyUidsWithPort, PortSearch search) {
    if (readyUidsWithPort.contains(PodStates.uidOf(pod))) {
      return Optional.empty();
    }
    return Optional.of(explain(pod == null ? null : pod.getSpec(), port, search));
  }

  /**
   * Why a pod with this spec is not an endpoint of the port, by what {@code FindPort} makes of it.
   */
  public static Missing explain(PodSpec spec, ServicePort port, PortSearch search) {
    PortResolution resolution = TargetPorts.resolve(port, spec, search);
    List<String> declared = TargetPorts.namesOf(TargetPorts.declared(spec, search));
    String portText = describe(port);
    if (resolution instanceof PortResolution.NotFound notFound) {
      return new Missing(
          MissingReason.NAMED_PORT_NOT_FOUND,
          declared,
          notFound.closest(),
          portText
              + ": no container port named "
              + notFound.name()
              + "; the pod declares "
              + (declared.isEmpty() ? "no named ports" : String.join(", ", declared))
              + notFound.closest().map(c -> " (closest: " + c + ")").orElse(""));
    }
    if (resolution instanceof PortResolution.ProtocolMismatch mismatch) {
      return new Missing(
          MissingReason.PROTOCOL_MISMATCH,
          declared,
          Optional.empty(),
          portText
              + ": container "
              + mismatch.declared().container()
              + " declares "
              + mismatch.name()
              + " as "
              + mismatch.declared().protocol()
              + ", the Service wants "
              + mismatch.wanted());
    }
    PortResolution.Resolved resolved = (PortResolution.Resolved) resolution;
    return new Missing(
        MissingReason.NOT_IN_ENDPOINTS,
        declared,
        Optional.empty(),
        portText
            + ": resolves to "
            + resolved.port()
            + ", but the pod is not a ready endpoint with this port");
  }

  /** {@code port http (80 -> http/TCP)}, the way messages name a Service port. */
  public static String describe(ServicePort port) {
    String name = ServiceSelection.portName(port);
    String target =
        port == null || port.getTargetPort() == null
            ? String.valueOf(port == null ? null : port.getPort())
            : port.getTargetPort().getIntVal() != null
                ? String.valueOf(port.getTargetPort().getIntVal())
                : port.getTargetPort().getStrVal();
    return "port "
        + (name.isEmpty() ? "(unnamed)" : name)
        + " ("
        + (port == null ? null : port.getPort())
        + " -> "
        + target
        + "/"
        + TargetPorts.protocolOf(port)
        + ")";
  }
}
