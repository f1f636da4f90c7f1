package dev.routesync.drift;

import dev.routesync.rules.ControllerSlices;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * All the drift detector keeps of one EndpointSlice, made once when the slice arrives ({@link
 * #of}): which slice it is, its version, its Service, the ports it carries, how many ready pods it
 * lists, and which of them run on this node. The decoded slice (about 900 bytes per endpoint) is
 * dropped; this keeps a few dozen bytes, plus a uid per ready pod of this node.
 *
 * <p>Why that is enough: a pod is evaluated only on its own node, and the EndpointSlice controller
 * sets each endpoint's {@code nodeName} from its pod, so only endpoints naming this node can hold
 * the uid of a pod evaluated here. Endpoints without a {@code nodeName} (written by another tool)
 * are kept too, to be safe. The gauge of ready endpoints needs only the count ({@link ReadyUids}).
 *
 * <p>Immutable; strings are the decoded slice's own (namespace, Service name and port names
 * interned), so the informer's store and this share them.
 *
 * @param namespace the slice's namespace (interned), or null when it has none
 * @param name the slice's name, or null when it has none
 * @param service the Service its {@value ControllerSlices#SERVICE_NAME_LABEL} label names, or null
 * @param resourceVersion its version, or null: a relist finding the same one keeps this record
 * @param ports the names of the ports it carries ({@code ""} for an unnamed one, interned); empty
 *     when the EndpointSlice controller did not write it, so that it counts for no port ({@link
 *     ControllerSlices#readyUidsWithPort} reads only the controller's slices)
 * @param readyPods the distinct pods it lists ready, on any node (0 when not the controller's)
 * @param readyHere the uids of the pods it lists ready on this node (or with no {@code nodeName})
 * @param ipv6 its {@code addressType} is IPv6: a dual-stack Service lists each pod once per family,
 *     so its ready pods are counted per family ({@link ReadyUids})
 */
public record NodeSlice(
    String namespace,
    String name,
    String service,
    String resourceVersion,
    List<String> ports,
    int readyPods,
    List<String> readyHere,
    boolean ipv6) {

  /** What the detector on {@code nodeName} keeps of {@code slice}. Never throws. */
  public static NodeSlice of(EndpointSlice slice, String nodeName) {
    ObjectMeta meta = slice == null ? null : slice.getMetadata();
    String namespace = meta == null || meta.getNamespace() == null ? null : meta.getNamespace();
    // Interned, as the table's key of the same Service is (ObjectStore).
    String service = ControllerSlices.serviceNameOf(slice).map(String::intern).orElse(null);
    String version = meta == null ? null : meta.getResourceVersion();
    boolean ipv6 = slice != null && "IPv6".equals(slice.getAddressType());
    if (!ControllerSlices.isControllerManaged(slice)) {
      return new NodeSlice(
          namespace == null ? null : namespace.intern(),
          meta == null ? null : meta.getName(),
          service,
          version,
          List.of(),
          0,
          List.of(),
          ipv6);
    }
    Set<String> ready = new HashSet<>();
    List<String> here = new ArrayList<>(0);
    ControllerSlices.forEachReadyPod(
        slice,
        (uid, endpointNode) -> {
          if (ready.add(uid) && (endpointNode == null || endpointNode.equals(nodeName))) {
            here.add(uid);
          }
        });
    List<String> ports = new ArrayList<>();
    for (String port : ControllerSlices.portNamesOf(slice)) {
      ports.add(port.intern());
    }
    return new NodeSlice(
        namespace == null ? null : namespace.intern(),
        meta.getName(),
        service,
        version,
        List.copyOf(ports),
        ready.size(),
        List.copyOf(here),
        ipv6);
  }

  /** Its Service, or null when its label names none or it has no namespace. */
  ServiceRef owner() {
    return service == null || namespace == null ? null : new ServiceRef(namespace, service);
  }

  /** Its ready pods are ready endpoints of this port. */
  boolean carries(String portName) {
    return ports.contains(portName);
  }
}
