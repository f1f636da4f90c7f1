package dev.routesync.lint;

import dev.routesync.lint.LintedObjects.LintedService;
import dev.routesync.lint.LintedObjects.Workload;
import dev.routesync.rules.EndpointCheck;
import dev.routesync.rules.KubeVersion;
import dev.routesync.rules.PortResolution;
import dev.routesync.rules.PortSearch;
import dev.routesync.rules.ServiceSelection;
import dev.routesync.rules.TargetPorts;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The checks: for each Service the EndpointSlice controller would fill, each of its ports and each
 * workload it selects, what {@code FindPort} makes of the port for that workload's pods ({@link
 * TargetPorts}, shared with {@code gate} and the drift detector). At most one finding per (Service,
 * port, workload).
 *
 * @param kubeVersion the cluster's version: before 1.32, sidecars' ports are not searched
 * @param allowExternalWorkloads no RS003: the Services' pods may come from other manifests
 */
record Linter(KubeVersion kubeVersion, boolean allowExternalWorkloads) {

  /** The findings, in {@link Finding#ORDER}. */
  List<Finding> lint(LintedObjects objects) {
    List<Finding> findings = new ArrayList<>();
    // A Service selects only in its namespace: look at that namespace's workloads only.
    Map<String, List<Workload>> byNamespace =
        objects.workloads().stream().collect(Collectors.groupingBy(Workload::namespace));
    for (LintedService service : objects.services()) {
      if (!ServiceSelection.isControllerManaged(service.service())) {
        continue; // No selector or ExternalName: its endpoints are not the controller's.
      }
      List<Workload> selected =
          byNamespace.getOrDefault(service.namespace(), List.of()).stream()
              .filter(w -> ServiceSelection.selects(service.service(), w.namespace(), w.labels()))
              .toList();
      if (selected.isEmpty()) {
        noWorkload(service, objects).ifPresent(findings::add);
        continue;
      }
      List<ServicePort> ports = service.service().getSpec().getPorts();
      for (int i = 0; ports != null && i < ports.size(); i++) {
        if (ports.get(i) == null) {
          continue;
        }
        for (Workload workload : selected) {
          check(service, ports.get(i), i, workload).ifPresent(findings::add);
        }
      }
    }
    findings.sort(Finding.ORDER);
    return findings;
  }

  private Optional<Finding> noWorkload(LintedService service, LintedObjects objects) {
    Map<String, String> selector = service.service().getSpec().getSelector();
    boolean mayBeServed =
        objects.opaque().stream()
            .anyMatch(pods -> pods.mayBeSelectedBy(service.namespace(), selector));
    if (allowExternalWorkloads || mayBeServed) {
      return Optional.empty();
    }
    String selectorText =
        selector.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(","));
    return Optional.of(
        new Finding(
            Rule.RS003,
            service.lines().file(),
            service.lines().selector(),
            service.namespace(),
            service.name(),
            Optional.empty(),
            Optional.empty(),
            serviceText(service)
                + " selects no workload in these manifests (selector "
                + selectorText
                + "); pass --allow-external-workloads if its pods are deployed elsewhere",
            List.of(),
            Optional.empty()));
  }

  private Optional<Finding> check(
      LintedService service, ServicePort port, int index, Workload workload) {
    PortSearch search = kubeVersion.portSearch();
    PortResolution resolution = TargetPorts.resolve(port, workload.spec(), search);
    if (resolution.resolved()) {
      return Optional.empty();
    }
    String subject =
        serviceText(service)
            + " "
            + EndpointCheck.describe(port)
            + ": "
            + workload.ref().describe()
            + " ";
    if (!search.searchesSidecars()
        && TargetPorts.resolve(port, workload.spec(), PortSearch.CONTAINERS_AND_SIDECARS)
            instanceof PortResolution.Resolved sidecar
        && sidecar.via() == PortResolution.Via.SIDECAR) {
      // One finding, the precise one: on 1.32 and later this port resolves.
      String container = sidecar.declared().map(d -> d.container()).orElse("");
      String name = port.getTargetPort().getStrVal();
      return finding(
          Rule.RS004,
          service,
          port,
          index,
          workload,
          subject
              + "declares "
              + name
              + " only in the restartable init container "
              + container
              + ", whose ports Kubernetes resolves from 1.32 on (--kube-version "
              + kubeVersion
              + "): its pods get no endpoint for this port",
          TargetPorts.namesOf(
              TargetPorts.declared(workload.spec(), PortSearch.CONTAINERS_AND_SIDECARS)),
          Optional.empty());
    }
    if (resolution instanceof PortResolution.NotFound notFound) {
      List<String> declared = TargetPorts.namesOf(notFound.declared());
      String names =
          declared.isEmpty()
              ? "it declares no named ports"
              : "it declares "
                  + String.join(", ", declared)
                  + notFound.closest().map(c -> "; did you mean " + c + "?").orElse("");
      return finding(
          Rule.RS001,
          service,
          port,
          index,
          workload,
          subject + "declares no container port named " + notFound.name() + " (" + names + ")",
          declared,
          notFound.closest());
    }
    PortResolution.ProtocolMismatch mismatch = (PortResolution.ProtocolMismatch) resolution;
    return finding(
        Rule.RS002,
        service,
        port,
        index,
        workload,
        subject
            + "declares "
            + mismatch.name()
            + " as "
            + mismatch.declared().protocol()
            + " (container "
            + mismatch.declared().container()
            + "), but the Service port is "
            + mismatch.wanted()
            + ": a named targetPort must match name and protocol",
        TargetPorts.namesOf(TargetPorts.declared(workload.spec(), search)),
        Optional.empty());
  }

  private static Optional<Finding> finding(
      Rule rule,
      LintedService service,
      ServicePort port,
      int index,
      Workload workload,
      String message,
      List<String> declared,
      Optional<String> closest) {
    return Optional.of(
        new Finding(
            rule,
            service.lines().file(),
            service.lines().targetPort(index),
            service.namespace(),
            service.name(),
            Optional.of(portRef(port)),
            Optional.of(workload.ref()),
            message,
            declared,
            closest));
  }

  private static Finding.PortRef portRef(ServicePort port) {
    IntOrString target = port.getTargetPort();
    String targetText =
        target == null
            ? ""
            : target.getIntVal() != null ? String.valueOf(target.getIntVal()) : target.getStrVal();
    return new Finding.PortRef(
        ServiceSelection.portName(port),
        port.getPort() == null ? 0 : port.getPort(),
        targetText,
        TargetPorts.protocolOf(port));
  }

  private static String serviceText(LintedService service) {
    return "Service " + service.namespace() + "/" + service.name();
  }
}
