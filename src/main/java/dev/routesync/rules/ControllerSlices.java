package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

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
    return portNamesOf(slice).contains(portName);
  }

  private static void addReadyUids(EndpointSlice slice, Set<String> uids) {
    forEachReadyPod(slice, (uid, nodeName) -> uids.add(uid));
  }

  /**
   * The names of the ports the slice carries ({@code ""} for an unnamed one), each once, in the
   * slice's order: every ready pod it lists is a ready endpoint of each of them.
   */
  public static List<String> portNamesOf(EndpointSlice slice) {
    if (slice == null || slice.getPorts() == null) {
      return List.of();
    }
    List<String> names = new ArrayList<>(slice.getPorts().size());
    for (EndpointPort port : slice.getPorts()) {
      if (port != null) {
        String name = port.getName() == null ? "" : port.getName();
        if (!names.contains(name)) {
          names.add(name);
        }
      }
    }
    return names;
  }

  /**
   * Calls {@code action} with the uid and the {@code nodeName} (null when the endpoint has none) of
   * each pod the slice lists ready, as {@link #readyUidsWithPort} counts them: {@code ready} absent
   * means true, a target without a kind is a pod.
   */
  public static void forEachReadyPod(EndpointSlice slice, BiConsumer<String, String> action) {
    if (slice == null || slice.getEndpoints() == null) {
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
        action.accept(target.getUid(), endpoint.getNodeName());
      }
    }
  }

  // The controller always writes kind Pod; a reference without a kind is read as one.
  private static boolean isPod(ObjectReference target) {
    return target.getKind() == null || "Pod".equals(target.getKind());
  }
}
