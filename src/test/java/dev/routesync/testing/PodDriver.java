package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Drives Pods in the mock API server as the scheduler, the kubelet and a Deployment controller
 * would: Pods are created bound to a node, Running, with an IP and a Ready condition; readiness
 * flips; termination is graceful (the Pod stays, with a deletionTimestamp, until the kubelet
 * finishes it); Nodes are registered as their kubelets would register them.
 *
 * <p>Termination is modelled with a finalizer ({@value #KUBELET_FINALIZER}): the mock deletes a Pod
 * at once on DELETE, except when a finalizer holds it, and then sets {@code
 * metadata.deletionTimestamp} as a real API server does on a graceful delete. Watchers see what
 * they would see in a cluster (MODIFIED with a deletionTimestamp, later DELETED); the finalizer is
 * the one visible difference.
 *
 * <p>Pod IPs are 10.244.x.y, unique per driver: use one driver per cluster.
 */
public final class PodDriver {

  /** Holds a terminating Pod until {@link #finishTermination} (the kubelet's part). */
  public static final String KUBELET_FINALIZER = "routesync.dev/test-kubelet";

  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private final KubernetesClient client;
  private final AtomicInteger ips = new AtomicInteger();
  private final AtomicInteger names = new AtomicInteger();
  private final Set<String> nodes = ConcurrentHashMap.newKeySet();

  public PodDriver(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Registers a Node (idempotent), with a {@code topology.kubernetes.io/zone} label unless {@code
   * zone} is null. The EndpointSlice controller leaves out Pods whose Node does not exist, so
   * {@link #run} registers the node of a Pod itself when nobody has.
   */
  public Node node(String name, String zone) {
    NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
    if (zone != null) {
      node.editMetadata().addToLabels(SliceModel.ZONE_LABEL, zone).endMetadata();
    }
    Node existing = client.nodes().withName(name).get();
    Node written =
        existing == null
            ? client.resource(node.build()).create()
            : client
                .nodes()
                .withName(name)
                .edit(
                    n ->
                        zone == null
                            ? n
                            : new NodeBuilder(n)
                                .editMetadata()
                                .addToLabels(SliceModel.ZONE_LABEL, zone)
                                .endMetadata()
                                .build());
    nodes.add(name);
    return written;
  }

  /**
   * A Pod scheduled to {@code node} and started: phase Running, a fresh IP, condition Ready as
   * given. Returns the Pod as the API server stored it (with the uid the mock assigned).
   */
  public Pod run(
      String namespace,
      String name,
      Map<String, String> labels,
      PodSpec spec,
      String node,
      boolean ready) {
    if (!nodes.contains(node)) {
      if (client.nodes().withName(node).get() == null) {
        node(node, null);
      }
      nodes.add(node);
    }
    String ip = nextIp();
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .withSpec(new PodBuilder().withSpec(spec).build().getSpec())
            .editSpec()
            .withNodeName(node)
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .withPodIP(ip)
            .addNewPodIP()
            .withIp(ip)
            .endPodIP()
            .withConditions(readiness(ready))
            .endStatus()
            .build();
    return client.resource(pod).create();
  }

  /** {@code replicas} Pods of the workload's current template, Ready, on {@code node}. */
  public List<Pod> deploy(Workload workload, int replicas, String node) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < replicas; i++) {
      pods.add(start(workload, node, true));
    }
    return pods;
  }

  /** One Pod of the workload's template, named as a ReplicaSet names its Pods. */
  public Pod start(Workload workload, String node, boolean ready) {
    return run(
        workload.namespace(),
        workload.name() + "-" + workload.templateHash() + "-" + nextSuffix(),
        workload.podLabels(),
        workload.spec(),
        node,
        ready);
  }

  /** The kubelet reports the readiness probe's verdict (conditions Ready and ContainersReady). */
  public Pod setReady(Pod pod, boolean ready) {
    return resource(pod)
        .editStatus(
            p ->
                new PodBuilder(p)
                    .editStatus()
                    .withConditions(readiness(ready))
                    .endStatus()
                    .build());
  }

  /** The Pod's phase, e.g. Succeeded or Failed (a terminal Pod keeps its IP). */
  public Pod setPhase(Pod pod, String phase) {
    return resource(pod)
        .editStatus(p -> new PodBuilder(p).editStatus().withPhase(phase).endStatus().build());
  }

  /**
   * A graceful delete: the Pod gets a deletionTimestamp and stays, still Ready as far as its
   * readiness probe goes, until {@link #finishTermination}.
   */
  public Pod startTerminating(Pod pod) {
    PodResource resource = resource(pod);
    resource.edit(
        p ->
            new PodBuilder(p)
                .editMetadata()
                .addToFinalizers(KUBELET_FINALIZER)
                .endMetadata()
                .build());
    resource.delete();
    return resource.get();
  }

  /** The kubelet has stopped the Pod's containers: the API server removes the Pod. */
  public void finishTermination(Pod pod) {
    resource(pod)
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .removeFromFinalizers(KUBELET_FINALIZER)
                    .endMetadata()
                    .build());
  }

  /** Deleted at once (grace period 0, or a Pod that was never started). */
  public void delete(Pod pod) {
    resource(pod).delete();
  }

  /** The workload's Pods that exist now, terminating ones included, any template. */
  public List<Pod> podsOf(Workload workload) {
    return client
        .pods()
        .inNamespace(workload.namespace())
        .withLabels(workload.labels())
        .list()
        .getItems();
  }

  /**
   * A rollout of {@code from}'s Pods to {@code to}'s template on {@code node}, step by step (see
   * {@link Rollout}).
   */
  public Rollout rollout(
      Workload from, Workload to, String node, int replicas, int maxSurge, int maxUnavailable) {
    List<Pod> old =
        podsOf(from).stream()
            .filter(
                p ->
                    from.templateHash()
                        .equals(p.getMetadata().getLabels().get("pod-template-hash")))
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .toList();
    return new Rollout(this, to, node, old, replicas, maxSurge, maxUnavailable);
  }

  private PodResource resource(Pod pod) {
    return client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName());
  }

  private static List<PodCondition> readiness(boolean ready) {
    String status = ready ? "True" : "False";
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    return List.of(
        new PodConditionBuilder()
            .withType("Ready")
            .withStatus(status)
            .withLastTransitionTime(now)
            .build(),
        new PodConditionBuilder()
            .withType("ContainersReady")
            .withStatus(status)
            .withLastTransitionTime(now)
            .build());
  }

  private String nextIp() {
    int n = ips.getAndIncrement();
    return "10.244." + (n / 250) + "." + (n % 250 + 1);
  }

  private String nextSuffix() {
    int n = names.getAndIncrement();
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      suffix.append(ALPHABET.charAt(n % ALPHABET.length()));
      n /= ALPHABET.length();
    }
    return suffix.toString();
  }
}
