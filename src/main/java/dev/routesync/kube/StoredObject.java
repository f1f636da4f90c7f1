package dev.routesync.kube;

import dev.routesync.kube.translate.ObjectTranslation;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Instant;

/**
 * All the agent keeps of one watched object: its identity and version, the Service it belongs to,
 * its translation, and its parsed trigger time, made once when the object arrives ({@link
 * ObjectStore}). The decoded fabric8 object (hundreds of bytes per endpoint) is dropped.
 *
 * @param namespace the object's namespace (shared, one instance per namespace)
 * @param name the object's name
 * @param resourceVersion the version translated (a relist finding the same one reuses this)
 * @param service the Service it belongs to, or null when it names none
 * @param translation its endpoints and skips
 * @param triggerTime its {@code endpoints.kubernetes.io/last-change-trigger-time}, or null
 * @param form a second consumer's compact form of it ({@link CompactForms}), made until that
 *     consumer has read its generation's forms; null otherwise
 * @param <T> the kind it was made from
 */
record StoredObject<T extends HasMetadata>(
    String namespace,
    String name,
    String resourceVersion,
    ServiceKey service,
    ObjectTranslation translation,
    Instant triggerTime,
    Object form) {}
