package dev.routesync.drift;

import dev.routesync.rules.PodStates;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashSet;
import java.util.Set;

/**
 * One pod of this node as the detector tracks it: the latest object, when it became Ready (as this
 * agent saw it), the Services selecting it and the drifts reported for it.
 *
 * <p>Mutable on purpose: updated in place by every event of the pod, on the sync context only;
 * nothing outside the detector sees it. A new pod under the same name (a StatefulSet's) gets a new
 * state, so its uid never changes.
 */
final class PodState {
  final String key;
  final String uid;
  final long firstSeen;
  Pod pod;
  long readySince = -1;

  /** The Services selecting it: the reverse of {@link Membership}'s members. */
  final Set<ServiceRef> services = new HashSet<>();

  /** Its drifts that are reported now. */
  final Set<DriftKey> reported = new HashSet<>();

  PodState(String key, Pod pod, long firstSeen) {
    this.key = key;
    this.uid = PodStates.uidOf(pod);
    this.firstSeen = firstSeen;
    this.pod = pod;
  }

  /** A new version of the pod arrived at {@code at}: a Ready transition restarts its grace. */
  void seen(Pod pod, long at) {
    this.pod = pod;
    boolean ready = PodStates.isReady(pod);
    if (ready && readySince < 0) {
      readySince = at;
    } else if (!ready) {
      readySince = -1;
    }
  }

  String namespace() {
    return pod.getMetadata().getNamespace();
  }

  String name() {
    return pod.getMetadata().getName();
  }

  /** Since when it should be an endpoint: its Ready transition, or (not Ready) first sight. */
  long expectedSince() {
    return readySince >= 0 ? readySince : firstSeen;
  }
}
