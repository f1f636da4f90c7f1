package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;

/**
 * A Deployment rollout driven one step at a time, so a test can assert between steps. It follows
 * the seed's account: new Pods start and pass their readiness probes, then old Pods are terminated
 * two at a time.
 *
 * <ul>
 *   <li>{@link Kind#SURGE}: up to {@code maxSurge} new Pods, Ready, while the total stays within
 *       {@code replicas + maxSurge};
 *   <li>{@link Kind#TERMINATE}: up to {@code maxUnavailable} old Pods start terminating (they keep
 *       their readiness; the slices mark them terminating, not ready);
 *   <li>{@link Kind#REMOVE}: those Pods are gone.
 * </ul>
 *
 * With 8 replicas and 2/2 that is SURGE, TERMINATE, REMOVE four times. A real Deployment controller
 * may overlap surging and scaling down and gates each scale-down on new Pods being available; with
 * new Pods Ready at once, as here, it ends in the same place.
 */
public final class Rollout {

  /** What a step did. */
  public enum Kind {
    SURGE,
    TERMINATE,
    REMOVE
  }

  /** One step: what it did, to which Pods. */
  public record Step(Kind kind, List<Pod> pods) {}

  private final PodDriver driver;
  private final Workload target;
  private final String node;
  private final int replicas;
  private final int maxSurge;
  private final int maxUnavailable;
  private final List<Pod> old;
  private final List<Pod> terminating = new ArrayList<>();
  private final List<Pod> created = new ArrayList<>();

  Rollout(
      PodDriver driver,
      Workload target,
      String node,
      List<Pod> old,
      int replicas,
      int maxSurge,
      int maxUnavailable) {
    if (maxSurge < 1 || maxUnavailable < 1) {
      throw new IllegalArgumentException("this model needs maxSurge and maxUnavailable >= 1");
    }
    this.driver = driver;
    this.target = target;
    this.node = node;
    this.old = new ArrayList<>(old);
    this.replicas = replicas;
    this.maxSurge = maxSurge;
    this.maxUnavailable = maxUnavailable;
  }

  public boolean done() {
    return terminating.isEmpty() && old.isEmpty() && created.size() >= replicas;
  }

  /** Takes the next step; fails when the rollout is {@link #done()}. */
  public Step step() {
    if (!terminating.isEmpty()) {
      List<Pod> removed = List.copyOf(terminating);
      removed.forEach(driver::finishTermination);
      terminating.clear();
      return new Step(Kind.REMOVE, removed);
    }
    if (created.size() < replicas && created.size() + old.size() <= replicas) {
      int count = Math.min(maxSurge, replicas - created.size());
      List<Pod> started = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        started.add(driver.start(target, node, true));
      }
      created.addAll(started);
      return new Step(Kind.SURGE, List.copyOf(started));
    }
    if (!old.isEmpty()) {
      List<Pod> doomed = new ArrayList<>(old.subList(0, Math.min(maxUnavailable, old.size())));
      List<Pod> marked = new ArrayList<>();
      for (Pod pod : doomed) {
        marked.add(driver.startTerminating(pod));
      }
      old.removeAll(doomed);
      terminating.addAll(marked);
      return new Step(Kind.TERMINATE, List.copyOf(marked));
    }
    throw new IllegalStateException("the rollout is done");
  }

  /** Steps until {@link #done()}; returns the steps taken. */
  public List<Step> finish() {
    List<Step> steps = new ArrayList<>();
    while (!done()) {
      steps.add(step());
    }
    return steps;
  }

  /** The new template's Pods created so far. */
  public List<Pod> newPods() {
    return List.copyOf(created);
  }

  /** The old Pods not yet terminating. */
  public List<Pod> oldPods() {
    return List.copyOf(old);
  }
}
