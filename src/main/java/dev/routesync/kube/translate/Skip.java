package dev.routesync.kube.translate;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;

/**
 * One skipped object or part of one.
 *
 * @param reason why
 * @param object {@code Kind namespace/name} of the object it came from
 * @param resourceVersion that object's {@code metadata.resourceVersion} (null if it has none): a
 *     skip is counted once per object version, however often the object is translated
 * @param detail what exactly was wrong, for the warning a person reads
 */
public record Skip(SkipReason reason, String object, String resourceVersion, String detail) {

  /** The object's {@code metadata.resourceVersion}, or null: what a skip is counted once per. */
  public static String resourceVersionOf(HasMetadata object) {
    ObjectMeta meta = object == null ? null : object.getMetadata();
    return meta == null ? null : meta.getResourceVersion();
  }
}
