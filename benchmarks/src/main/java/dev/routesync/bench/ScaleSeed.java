package dev.routesync.bench;

import dev.routesync.rules.ControllerSlices;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The cluster {@link ScaleRun} measures the agent against, written into the CRUD mock: N
 * mesh-managed Services in {@value #NAMESPACES} namespaces, each with one controller EndpointSlice
 * of {@value #ENDPOINTS} ready endpoints (realistic names and sizes, as in {@link MemoryBenchmark})
 * spread over {@value #OTHER_NODES} other nodes (each, as the controller writes it, a Pod {@code
 * targetRef} with the pod's name and uid), and, when the drift detector is measured, this node's
 * {@value #PODS_HERE} pods (the drift benchmark's "110 pods on the node").
 *
 * <p>This node's pods are as the detector wants them for a clean node: Running, Ready, with an IP,
 * a container port named as the Service's port, labels that {@value #SERVICES_WITH_PODS_HERE}
 * Services select (two pods each, so every namespace has some), and each one a ready endpoint of
 * its Service's slice ({@code targetRef} kind Pod with the uid the mock gave the pod, {@code
 * nodeName} this node), in place of one of the 25. So the detector evaluates 110 real pods against
 * 55 Services and their slices and must report no drift.
 *
 * <p>Two ways to write it: {@link Writer#BULK} ({@link MockCluster#createAll}: the mock's own
 * create handler without a request per object, O(N): 9.8 s for 2,000 Services and their slices,
 * 100-137 s for 40,000, on 2 cores shared at load 10) and {@link Writer#HTTP} (POSTs from a pool of
 * writers, as before: the mock scans everything it stores for a name conflict on each create under
 * its one write lock, so it slows down as it fills and more writers do not help: 151 s for 2,000
 * with 4 writers, 161 s with 16, in the same conditions). Kept to compare.
 */
final class ScaleSeed {

  static final int ENDPOINTS = 25;
  static final int NAMESPACES = 50;
  static final int OTHER_NODES = 50;
  static final int PODS_HERE = 110;
  static final int SERVICES_WITH_PODS_HERE = 55;

  /** This node's name, as the DaemonSet passes it ({@code NODE_NAME} from spec.nodeName). */
  static final String NODE = "gke-prod-default-pool-5f1c2a9e-q7mk";

  /** Objects per {@link MockCluster#createAll} batch: bounds the JSON held and the lock held. */
  private static final int BATCH = 4_000;

  enum Writer {
    BULK,
    HTTP
  }

  /**
   * What was written.
   *
   * @param servicesWithPodsHere Services selecting one of this node's pods (0 without pods)
   * @param readyEndpointsOfThose their ready endpoints, all nodes (what the detector's {@code
   *     routesync_service_ready_endpoints} gauges sum to)
   */
  record Seeded(
      int services,
      int podsHere,
      int servicesWithPodsHere,
      int readyEndpointsOfThose,
      double seconds) {}

  private ScaleSeed() {}

  /**
   * Writes the cluster.
   *
   * @param podsHere whether to write this node's pods (and list them in their Services' slices)
   * @param writers HTTP writer threads (ignored for {@link Writer#BULK})
   */
  static Seeded seed(
      MockCluster cluster, int services, boolean podsHere, Writer writer, int writers)
      throws Exception {
    long start = System.nanoTime();
    Random random = new Random(42);
    String[] nodes = new String[OTHER_NODES];
    for (int n = 0; n < nodes.length; n++) {
      nodes[n] = String.format(Locale.ROOT, "gke-prod-default-pool-%08x-abcd", random.nextInt());
    }
    int withPods = podsHere ? Math.min(services, SERVICES_WITH_PODS_HERE) : 0;
    List<Pod> pods = new ArrayList<>();
    if (podsHere) {
      for (int p = 0; p < PODS_HERE; p++) {
        // With no Services (the empty baseline) the node still runs its pods.
        int service = withPods == 0 ? p : p % withPods;
        pods.add(pod(service, p, random));
      }
    }
    List<String> podUids = write(cluster, pods, writer, writers);

    List<HasMetadata> objects = new ArrayList<>(2 * Math.min(services, BATCH));
    int address = 0;
    int readyOfThose = 0;
    for (int s = 0; s < services; s++) {
      List<Integer> here = new ArrayList<>();
      for (int p = s; p < pods.size() && s < withPods; p += withPods) {
        here.add(p);
      }
      Service service = service(s);
      objects.add(service);
      EndpointSliceBuilder slice = sliceOf(service, random);
      String replicaSet = service.getMetadata().getName() + "-" + hash(random, 10) + "-";
      int endpoints = Math.max(ENDPOINTS, here.size()); // a tiny cluster: all its pods here
      if (!here.isEmpty()) {
        readyOfThose += endpoints;
      }
      for (int e = 0; e < endpoints; e++) {
        if (e < here.size()) {
          Pod pod = pods.get(here.get(e));
          slice.addToEndpoints(
              endpoint(
                  pod.getStatus().getPodIP(),
                  NODE,
                  "zone-a",
                  pod.getMetadata().getNamespace(),
                  pod.getMetadata().getName(),
                  podUids.get(here.get(e))));
          continue;
        }
        int host = (address++ * 0x9E3B) & 0xFFFFF;
        String ip = "10." + (64 + (host >> 16)) + "." + ((host >> 8) & 255) + "." + (host & 255);
        int node = random.nextInt(nodes.length);
        slice.addToEndpoints(
            endpoint(
                ip,
                nodes[node],
                "zone-" + (char) ('a' + node % 3),
                service.getMetadata().getNamespace(),
                replicaSet + hash(random, 5),
                uid(random)));
      }
      objects.add(slice.build());
      if (objects.size() >= BATCH) {
        write(cluster, objects, writer, writers);
        objects.clear();
      }
    }
    write(cluster, objects, writer, writers);
    return new Seeded(
        services, pods.size(), withPods, readyOfThose, (System.nanoTime() - start) / 1e9);
  }

  private static List<String> write(
      MockCluster cluster, List<? extends HasMetadata> objects, Writer writer, int writers)
      throws Exception {
    if (writer == Writer.BULK) {
      return cluster.createAll(objects);
    }
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      // One task per pair (a Service and then its slice), as ScaleRun wrote them before.
      List<Future<List<String>>> done = new ArrayList<>();
      for (int i = 0; i < objects.size(); ) {
        List<HasMetadata> task =
            objects.get(i) instanceof Service && i + 1 < objects.size()
                ? List.of(objects.get(i), objects.get(i + 1))
                : List.of(objects.get(i));
        i += task.size();
        done.add(
            pool.submit(
                () ->
                    task.stream()
                        .map(o -> cluster.client().resource(o).create().getMetadata().getUid())
                        .toList()));
      }
      List<String> uids = new ArrayList<>(objects.size());
      for (Future<List<String>> write : done) {
        uids.addAll(write.get(10, TimeUnit.MINUTES));
      }
      return uids;
    } finally {
      pool.shutdown();
    }
  }

  private static Service service(int s) {
    String name = "svc-" + s;
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace(s))
        .withName(name)
        .addToLabels("mesh-managed", "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", name)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withNewTargetPort(8080)
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  /** The controller's slice of {@code service}, without its endpoints yet. */
  private static EndpointSliceBuilder sliceOf(Service service, Random random) {
    String name = service.getMetadata().getName();
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(service.getMetadata().getNamespace())
        .withName(name + "-" + hash(random, 5))
        .addToLabels(ControllerSlices.SERVICE_NAME_LABEL, name)
        // The controller's own label: the detector trusts only the controller's slices.
        .addToLabels(ControllerSlices.MANAGED_BY_LABEL, ControllerSlices.CONTROLLER)
        .addToLabels("mesh-managed", "true")
        .addToAnnotations(
            "endpoints.kubernetes.io/last-change-trigger-time", "2026-01-01T00:00:00Z")
        .endMetadata()
        .withAddressType("IPv4")
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort();
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.Endpoint endpoint(
      String ip, String node, String zone, String namespace, String pod, String uid) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withZone(zone)
        .withNodeName(node)
        .withNewTargetRef()
        .withKind("Pod")
        .withNamespace(namespace)
        .withName(pod)
        .withUid(uid)
        .endTargetRef()
        .withNewConditions()
        .withReady(true)
        .withServing(true)
        .withTerminating(false)
        .endConditions()
        .build();
  }

  /**
   * Pod {@code p} of this node, of Service {@code s}'s Deployment: Running and Ready, an IP from
   * the node's pod range, the container port the Service targets (8080, named {@code http}).
   */
  private static Pod pod(int s, int p, Random random) {
    String app = "svc-" + s;
    String template = hash(random, 10);
    String created = "2026-01-01T00:00:00Z";
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace(s))
        .withName(app + "-" + template + "-" + hash(random, 5))
        .addToLabels("app", app)
        .addToLabels("pod-template-hash", template)
        .addNewOwnerReference()
        .withApiVersion("apps/v1")
        .withKind("ReplicaSet")
        .withName(app + "-" + template)
        .withUid(String.format(Locale.ROOT, "%08x-0000-4000-8000-%012x", s, p))
        .withController(true)
        .withBlockOwnerDeletion(true)
        .endOwnerReference()
        .endMetadata()
        .withNewSpec()
        .withNodeName(NODE)
        .withServiceAccountName("default")
        .addNewContainer()
        .withName("app")
        .withImage("registry.example.com/team/" + app + ":1.4.2")
        .addNewPort()
        .withName("http")
        .withContainerPort(8080)
        .withProtocol("TCP")
        .endPort()
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToRequests("memory", new Quantity("128Mi"))
        .endResources()
        .withNewReadinessProbe()
        .withNewHttpGet()
        .withPath("/healthz")
        .withNewPort("http")
        .endHttpGet()
        .endReadinessProbe()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withHostIP("10.128.0.17")
        .withPodIP("10.32.7." + (p + 2))
        .addNewPodIP("10.32.7." + (p + 2))
        .withStartTime(created)
        .addNewCondition()
        .withType("Initialized")
        .withStatus("True")
        .withLastTransitionTime(created)
        .endCondition()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withLastTransitionTime(created)
        .endCondition()
        .addNewCondition()
        .withType("ContainersReady")
        .withStatus("True")
        .withLastTransitionTime(created)
        .endCondition()
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("True")
        .withLastTransitionTime(created)
        .endCondition()
        .addNewContainerStatus()
        .withName("app")
        .withImage("registry.example.com/team/" + app + ":1.4.2")
        .withReady(true)
        .withStarted(true)
        .withRestartCount(0)
        .endContainerStatus()
        .endStatus()
        .build();
  }

  /** A pod uid as the API server makes them (a random UUID), from the seeded random. */
  private static String uid(Random random) {
    return new java.util.UUID(
            (random.nextLong() & ~0xF000L) | 0x4000L,
            (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L)
        .toString();
  }

  private static String namespace(int s) {
    return "team-" + s % NAMESPACES;
  }

  static String hash(Random random, int length) {
    String alphabet = "bcdfghjklmnpqrstvwxz2456789";
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }
}
