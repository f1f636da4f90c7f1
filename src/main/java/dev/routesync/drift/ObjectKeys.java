package dev.routesync.drift;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Map;

/**
 * How the detector names and compares watched objects. An object without a name or namespace has no
 * key ({@code null}) and is ignored: a watch should never deliver one, and one bad object must not
 * stop the others.
 */
final class ObjectKeys {

  /** The label the EndpointSlice controller puts on a Service's slices. */
  private ObjectKeys() {}

  /** {@code "namespace/name"}, or {@code null} if either is missing. */
  static String keyOf(HasMetadata object) {
    ObjectMeta meta = object == null ? null : object.getMetadata();
    if (meta == null || meta.getName() == null || meta.getNamespace() == null) {
      return null;
    }
    return meta.getNamespace() + "/" + meta.getName();
  }

  static String namespaceOf(HasMetadata object) {
    return object.getMetadata().getNamespace();
  }

  /** The Service's reference, or {@code null} if its name or namespace is missing. */
  static ServiceRef refOf(Service service) {
    ObjectMeta meta = service == null ? null : service.getMetadata();
    if (meta == null || meta.getName() == null || meta.getNamespace() == null) {
      return null;
    }
    return new ServiceRef(meta.getNamespace(), meta.getName());
  }

  /** The same object version: what a relist hands over again for every unchanged object. */
  static boolean sameVersion(HasMetadata known, HasMetadata listed) {
    String version = resourceVersion(listed);
    return version != null && version.equals(resourceVersion(known));
  }

  static String resourceVersion(HasMetadata object) {
    return object.getMetadata() == null ? null : object.getMetadata().getResourceVersion();
  }

  static Map<String, String> labelsOf(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }
}
