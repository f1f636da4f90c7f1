package dev.routesync.kube.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.Objects;

/**
 * One Warning worth an Event: what it is about and why. Events with the same {@code dedupKey} are
 * one Event whose series counts the repeats; the drift detector keys by (pod, Service, port,
 * reason).
 *
 * @param dedupKey what makes two observations the same Event; never shown, only hashed into the
 *     Event's name
 * @param regarding the object the Event is about (the Pod); its namespace is the Event's, and an
 *     object without one (a Node) has its Events in {@code default}, as the kubelet's are
 * @param related a second object involved (the Service), or null
 * @param reason why, machine-readable, at most 128 characters (e.g. {@code
 *     PodNotInServiceEndpoints})
 * @param action what was being done, at most 128 characters (e.g. {@code Routing})
 * @param note human text; cut to the API's 1 KB limit when written. The first observation's note
 *     stays: the API does not let an Event's note change
 */
public record EventSubject(
    String dedupKey,
    ObjectReference regarding,
    ObjectReference related,
    String reason,
    String action,
    String note) {

  /** The API's limit on {@code reason} and {@code action}. */
  static final int FIELD_LIMIT = 128;

  public EventSubject {
    requireText(dedupKey, "dedupKey");
    Objects.requireNonNull(regarding, "regarding");
    requireText(regarding.getName(), "regarding.name");
    requireText(reason, "reason");
    requireText(action, "action");
    if (reason.length() > FIELD_LIMIT || action.length() > FIELD_LIMIT) {
      throw new IllegalArgumentException(
          "reason and action are at most "
              + FIELD_LIMIT
              + " characters: "
              + reason
              + ", "
              + action);
    }
    // fabric8's model objects are mutable: keep copies, so a caller reusing its reference cannot
    // change an Event that is already queued.
    regarding = copy(regarding);
    related = copy(related);
    note = note == null ? "" : note;
  }

  /** A reference to a core/v1 object ({@code Pod}, {@code Service}) by namespace, name and uid. */
  public static ObjectReference coreReference(
      String kind, String namespace, String name, String uid) {
    return new ObjectReference("v1", null, kind, name, namespace, null, uid);
  }

  @Override
  public ObjectReference regarding() {
    return copy(regarding);
  }

  @Override
  public ObjectReference related() {
    return copy(related);
  }

  /**
   * The fields an Event's reference carries; the constructor, not a builder: this is the hot path.
   */
  private static ObjectReference copy(ObjectReference ref) {
    return ref == null
        ? null
        : new ObjectReference(
            ref.getApiVersion(),
            ref.getFieldPath(),
            ref.getKind(),
            ref.getName(),
            ref.getNamespace(),
            ref.getResourceVersion(),
            ref.getUid());
  }

  private static void requireText(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
  }
}
