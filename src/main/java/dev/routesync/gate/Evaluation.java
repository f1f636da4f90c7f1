package dev.routesync.gate;

import dev.routesync.rules.ControllerSlices;
import dev.routesync.rules.EndpointCheck;
import dev.routesync.rules.Missing;
import dev.routesync.rules.MissingReason;
import dev.routesync.rules.PodStates;
import dev.routesync.rules.PortSearch;
import dev.routesync.rules.ServiceSelection;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What one {@link Snapshot} says about the gate's Services: per Service and port, the expected pods
 * (selected, and {@link PodStates#isExpected}) against the ready endpoints carrying the port's name
 * in the controller's slices ({@link ControllerSlices#readyUidsWithPort}). Pure: the rules are
 * {@link dev.routesync.rules}'s, this only applies them to every pair.
 *
 * @param services the Services found, in {@code --service} order or by name for {@code -l}
 * @param notFound the {@code --service} names the namespace has no Service for
 * @param nothingSelected {@code -l} found no Service at all
 */
public record Evaluation(
    List<ServiceResult> services, List<String> notFound, boolean nothingSelected) {

  /**
   * Which containers the gate searches for a named targetPort: the 1.32 rule (sidecars too), on any
   * cluster. It is the cautious choice: a reason it calls certain is certain under the older rule
   * too (a name no container or sidecar declares is declared by no container), so it never fails
   * early a pod that may yet serve. On an older cluster, a pod whose port only a sidecar declares
   * is reported NotInEndpoints at the timeout instead of failing early.
   */
  public static final PortSearch SEARCH = PortSearch.CONTAINERS_AND_SIDECARS;

  private static final String NO_PORTS = "(no ports)";

  public Evaluation {
    services = List.copyOf(services);
    notFound = List.copyOf(notFound);
  }

  public static Evaluation of(Snapshot snapshot, Targets targets) {
    List<Service> found = new ArrayList<>();
    List<String> notFound = new ArrayList<>();
    if (targets.selector().isPresent()) {
      snapshot.services().stream()
          .filter(s -> targets.namespace().equals(meta(s).getNamespace()))
          .sorted(Comparator.comparing(s -> String.valueOf(meta(s).getName())))
          .forEach(found::add);
    } else {
      for (String name : targets.names()) {
        Optional<Service> service =
            snapshot.services().stream()
                .filter(s -> targets.namespace().equals(meta(s).getNamespace()))
                .filter(s -> name.equals(meta(s).getName()))
                .findFirst();
        service.ifPresentOrElse(found::add, () -> notFound.add(name));
      }
    }
    List<ServiceResult> results = new ArrayList<>();
    for (Service service : found) {
      results.add(evaluate(service, snapshot));
    }
    return new Evaluation(results, notFound, targets.selector().isPresent() && found.isEmpty());
  }

  /** Every checked Service port passes, and there is at least one checked Service. */
  public boolean passes(boolean allowEmpty) {
    return cannotEvaluate().isEmpty()
        && services.stream().filter(ServiceResult::evaluated).allMatch(s -> s.passes(allowEmpty));
  }

  /** The first expected pod missing for a certain reason, in Service, port and pod order. */
  public Optional<MissingPod> firstCertain() {
    return services.stream()
        .flatMap(s -> s.ports().stream())
        .flatMap(p -> p.missing().stream())
        .filter(MissingPod::certain)
        .findFirst();
  }

  /**
   * Why the gate cannot judge at all: a named Service does not exist, {@code -l} selects none, or
   * no selected Service is the controller's. The pipeline is then misconfigured (exit code 3).
   */
  public Optional<String> cannotEvaluate() {
    if (!notFound.isEmpty()) {
      return Optional.of(
          (notFound.size() == 1 ? "Service " : "Services ")
              + String.join(", ", notFound)
              + " not found");
    }
    if (nothingSelected) {
      return Optional.of("no Service matches the selector");
    }
    if (services.stream().noneMatch(ServiceResult::evaluated)) {
      return Optional.of(
          "none of the Services has endpoints from the EndpointSlice controller; nothing to check");
    }
    return Optional.empty();
  }

  private static ServiceResult evaluate(Service service, Snapshot snapshot) {
    String namespace = meta(service).getNamespace();
    String name = meta(service).getName();
    if (!ServiceSelection.isControllerManaged(service)) {
      return new ServiceResult(namespace, name, Optional.of(whyNotChecked(service)), List.of());
    }
    List<EndpointSlice> slices =
        snapshot.slices().stream()
            .filter(s -> Objects.equals(namespace, meta(s).getNamespace()))
            .filter(s -> ControllerSlices.serviceNameOf(s).filter(name::equals).isPresent())
            .toList();
    List<Pod> expected =
        snapshot.pods().stream()
            .filter(
                p -> ServiceSelection.selects(service, meta(p).getNamespace(), meta(p).getLabels()))
            .filter(p -> PodStates.isExpected(p, service))
            .sorted(Comparator.comparing(p -> String.valueOf(meta(p).getName())))
            .toList();
    List<ServicePort> ports = ServiceSelection.portsOf(service);
    List<PortResult> results = new ArrayList<>();
    if (ports.isEmpty()) {
      // A headless Service without ports: the controller lists its pods in slices without
      // ports, so it is judged by the ready endpoints alone.
      results.add(portless(expected, ControllerSlices.readyUids(slices)));
    }
    for (ServicePort port : ports) {
      Set<String> ready =
          ControllerSlices.readyUidsWithPort(slices, ServiceSelection.portName(port));
      List<MissingPod> missing = new ArrayList<>();
      for (Pod pod : expected) {
        EndpointCheck.check(pod, port, ready, SEARCH)
            .ifPresent(m -> missing.add(new MissingPod(nameOf(pod), PodStates.uidOf(pod), m)));
      }
      results.add(
          new PortResult(
              ServiceSelection.portName(port),
              EndpointCheck.describe(port),
              expected.size(),
              ready.size(),
              missing));
    }
    return new ServiceResult(namespace, name, Optional.empty(), results);
  }

  private static PortResult portless(List<Pod> expected, Set<String> ready) {
    List<MissingPod> missing = new ArrayList<>();
    for (Pod pod : expected) {
      if (!ready.contains(PodStates.uidOf(pod))) {
        missing.add(
            new MissingPod(
                nameOf(pod),
                PodStates.uidOf(pod),
                new Missing(
                    MissingReason.NOT_IN_ENDPOINTS,
                    List.of(),
                    Optional.empty(),
                    NO_PORTS + ": the pod is not a ready endpoint")));
      }
    }
    return new PortResult("", NO_PORTS, expected.size(), ready.size(), missing);
  }

  private static String whyNotChecked(Service service) {
    if (service.getSpec() != null && "ExternalName".equals(service.getSpec().getType())) {
      return "ExternalName Service: the EndpointSlice controller writes no endpoints for it";
    }
    return "no selector: its endpoints are written by hand or by another controller, not by the"
        + " EndpointSlice controller";
  }

  private static String nameOf(Pod pod) {
    return meta(pod).getName() == null ? "" : meta(pod).getName();
  }

  private static ObjectMeta meta(io.fabric8.kubernetes.api.model.HasMetadata object) {
    return object.getMetadata() == null ? new ObjectMeta() : object.getMetadata();
  }
}
