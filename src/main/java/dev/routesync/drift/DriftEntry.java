package dev.routesync.drift;

import dev.routesync.rules.MissingReason;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * One drifting pod: Ready on this node, selected by a Service, and not among that Service port's
 * ready endpoints.
 *
 * @param namespace the pod's and the Service's namespace
 * @param service the Service's name
 * @param port the Service port's name ({@code ""} for an unnamed port), as endpoints carry it
 * @param pod the pod's name
 * @param podUid the pod's uid (pods are matched by uid: hostNetwork pods share the node's IP)
 * @param reason why it is missing
 * @param since when the detector first saw it missing for this reason
 * @param message one line for people: the port, the reason, the names the pod declares
 * @param declaredNames the port names the pod declares, in search order
 */
public record DriftEntry(
    String namespace,
    String service,
    String port,
    String pod,
    String podUid,
    MissingReason reason,
    Instant since,
    String message,
    List<String> declaredNames) {

  /** The order of {@code GET /v1/drift} and {@code routesync get drift}. */
  public static final Comparator<DriftEntry> ORDER =
      Comparator.comparing(DriftEntry::namespace)
          .thenComparing(DriftEntry::service)
          .thenComparing(DriftEntry::port)
          .thenComparing(DriftEntry::pod);

  public DriftEntry {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(port, "port");
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(podUid, "podUid");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(message, "message");
    declaredNames = List.copyOf(declaredNames);
  }

  /** The reason as metrics, events and JSON spell it ({@code NamedPortNotFound}). */
  public String reasonLabel() {
    return reason.label();
  }
}
