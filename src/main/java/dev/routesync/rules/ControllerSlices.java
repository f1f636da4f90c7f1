package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** What the EndpointSlice controller's slices of a Service say about its pods. */
public final class ControllerSlices {

  public static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
  public static final String CONTROLLER = "endpointslice-controller.k8s.io";

  /** The label that ties a slice to its Service, in the slice's namespace. */
  public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

  private ControllerSlices() {}

  /** Written by the EndpointSlice controller (not mirrored, not by hand, not by another tool). */
  public static boolean isControllerManaged(EndpointSlice slice) {
    Map<String, String> labels =
        slice == null || slice.getMetadata() == null ? null : slice.getMetadata().getLabels();
    return labels != null && CONTROLLER.equals(labels.get(MANAGED_BY_LABEL));
  }

  /** The Service the slice's {@value #SERVICE_NAME_LABEL} label names, or empty. */
  public static java.util.Optional<String> serviceNameOf(EndpointSlice slice) {
    Map<String, String> labels =
        slice == null || slice.getMetadata() == null ? null : slice.getMetadata().getLabels();
    String name = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
    return name == null || name.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(name);
  }

  /**
   * The pod uids listed ready, in the controller's slices, with a port named {@code portName}.
   * {@code ready} absent means true, as the API defines it.
   */
  public static Set<String> readyUidsWithPort(Collection<EndpointSlice> slices, String portName) {
    Set<String> uids = new HashSet<>();
    for (EndpointSlice slice : slices) {
      if (isControllerManaged(slice) && carriesPort(slice, portName)) {
        addReadyUids(slice, uids);
      }
    }
    return uids;
  }

  /** The pod uids listed ready in the controller's slices, whatever ports they carry. */
  public static Set<String> readyUids(Collection<EndpointSlice> slices) {
    Set<String> uids = new HashSet<>();
    for (EndpointSlice slice : slices) {
      if (isControllerManaged(slice)) {
        addReadyUids(slice, uids);
      }
    }
    return uids;
  }

  private static boolean carriesPort(EndpointSlice slice, String portName) {
    if (slice.getPorts() == null) {
      return false;
    }
    for (EndpointPort port : slice.getPorts()) {
      String name = port == null || port.getName() == null ? "" : port.getName();
      if (port != null && name.equals(portName)) {
        return true;
      }
    }
    return false;
  }

  private static void addReadyUids(EndpointSlice slice, Set<String> uids) {
    if (slice.getEndpoints() == null) {
      return;
    }
    for (Endpoint endpoint : slice.getEndpoints()) {
      if (endpoint == null) {
        continue;
      }
      boolean ready =
          endpoint.getConditions() == null
              || !Boolean.FALSE.equals(endpoint.getConditions().getReady());
      ObjectReference target = endpoint.getTargetRef();
      if (ready && target != null && isPod(target) && target.getUid() != null) {
        uids.add(target.getUid());
      }
    }
  }

  // The controller always writes kind Pod; a reference without a kind is read as one.
  private static boolean isPod(ObjectReference target) {
    return target.getKind() == null || "Pod".equals(target.getKind());
  }
}
