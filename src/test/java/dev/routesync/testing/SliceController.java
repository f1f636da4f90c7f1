package dev.routesync.testing;

import dev.routesync.testing.SliceModel.Ep;
import dev.routesync.testing.SliceModel.Options;
import dev.routesync.testing.SliceModel.PortSpec;
import dev.routesync.testing.SliceReconciler.Draft;
import dev.routesync.testing.SliceReconciler.Plan;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model of Kubernetes' EndpointSlice controller for tests, running against a {@link MockCluster}:
 * it watches Services, Pods and Nodes and writes the EndpointSlices the real controller would (see
 * {@link SliceModel} and {@link SliceReconciler} for the rules, transcribed from kubernetes' {@code
 * pkg/controller/endpointslice} and {@code staging/src/k8s.io/endpointslice}).
 *
 * <p>What it writes, as the real one does:
 *
 * <ul>
 *   <li>Only for Services with a non-empty selector that are not ExternalName; the Pods of the
 *       Service's namespace whose labels include the selector; terminal Pods and Pods without an IP
 *       are left out; so are Pods whose Node does not exist (unless {@code
 *       publishNotReadyAddresses}): register Nodes with {@link PodDriver#node}.
 *   <li>Endpoints grouped by the ports each Pod resolves (named targetPorts per Pod, {@link
 *       SliceModel#findPort}); a Pod that resolves none is listed in a slice with {@code "ports":
 *       null}; a Service with no endpoints gets one placeholder slice ({@code "ports": null,
 *       "endpoints": null}).
 *   <li>Conditions: serving = Pod Ready; terminating = deletionTimestamp set; ready = serving and
 *       not terminating, or true with {@code publishNotReadyAddresses}.
 *   <li>Labels {@code kubernetes.io/service-name}, {@code endpointslice.kubernetes.io/managed-by:
 *       endpointslice-controller.k8s.io} and the Service's own labels; an owner reference to the
 *       Service; {@code endpoints.kubernetes.io/last-change-trigger-time}; the Pods' uids as the
 *       mock assigned them; zone from the Node's {@code topology.kubernetes.io/zone} label.
 *   <li>Only what changed: slices are updated in place, filled up to 100 endpoints, deleted when
 *       empty; slices it did not write with its labels are put right (deleted, rewritten).
 *   <li>When a Service is deleted its slices go, as the garbage collector would remove them.
 * </ul>
 *
 * <p>Each sync reads the Service, its Pods and slices from the API server (not from a cache), so a
 * sync started after a test's write sees that write: {@link #awaitSynced()} runs a sync of every
 * Service on the controller's thread and returns once the slices match the cluster as it was when
 * the call was made. Between such calls the controller follows the watches by itself, within
 * milliseconds, as agents under test expect.
 *
 * <p>It reaches the mock through its own {@link TcpProxy}, which {@link #close()} cuts, so its
 * watches end by a dropped connection (a clean watch close can block the mock: STACK-NOTES). Close
 * it before or after the {@link MockCluster}.
 */
public final class SliceController implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SliceController.class);
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
  private static final int MAX_RETRIES = 50;
  private static final String NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private final Options options;
  private final SliceReconciler reconciler;
  private final TcpProxy proxy;
  private final KubernetesClient client;
  private final ScheduledExecutorService worker;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private SharedIndexInformer<Service> services;

  private final Set<String> dirty = new LinkedHashSet<>(); // guarded by this
  private final Map<String, Instant> triggers = new ConcurrentHashMap<>();
  private final Map<String, Integer> retries = new ConcurrentHashMap<>();
  private final Set<String> ownWrites = ConcurrentHashMap.newKeySet();
  private final AtomicLong syncs = new AtomicLong();
  private final AtomicLong writes = new AtomicLong();
  private final SecureRandom random = new SecureRandom();
  private volatile boolean closed;
  private volatile boolean paused;

  private SliceController(MockCluster cluster, Options options) throws Exception {
    this.options = options;
    this.reconciler = new SliceReconciler(options);
    this.proxy = new TcpProxy(cluster.port());
    this.client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(Config.empty())
                    .withMasterUrl(proxy.url())
                    // The mock's event loop can stall for ~10 s under a cut watch (MockCluster).
                    .withRequestTimeout(30_000)
                    .withConnectionTimeout(5_000)
                    .build())
            .build();
    this.worker =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "slice-controller");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Starts the controller as Kubernetes >= 1.32 runs it (sidecar ports resolve, 100 a slice). */
  public static SliceController start(MockCluster cluster) {
    return start(cluster, true, 100);
  }

  /**
   * @param sidecarPorts whether named targetPorts resolve to restartable init containers' ports too
   *     (Kubernetes >= 1.32)
   * @param maxEndpointsPerSlice the controller's {@code --max-endpoints-per-slice} (100 by default)
   */
  public static SliceController start(
      MockCluster cluster, boolean sidecarPorts, int maxEndpointsPerSlice) {
    SliceController controller;
    try {
      controller = new SliceController(cluster, new Options(sidecarPorts, maxEndpointsPerSlice));
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the slice controller", e);
    }
    try {
      controller.startInformers();
      controller.awaitSynced();
      return controller;
    } catch (RuntimeException | Error e) {
      controller.close();
      throw e;
    }
  }

  private void startInformers() {
    services =
        inform(
            client.services().inAnyNamespace().runnableInformer(0),
            (before, service) -> enqueue(key(service)));
    inform(client.pods().inAnyNamespace().runnableInformer(0), this::podChanged);
    inform(client.nodes().runnableInformer(0), (before, node) -> enqueueAll());
    inform(
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inAnyNamespace()
            .withLabel(SliceModel.MANAGED_BY_LABEL, SliceModel.CONTROLLER_NAME)
            .runnableInformer(0),
        (before, slice) -> sliceChanged(slice),
        this::sliceDeleted);
  }

  private <T extends HasMetadata> SharedIndexInformer<T> inform(
      SharedIndexInformer<T> informer, BiConsumer<T, T> changed) {
    return inform(informer, changed, object -> changed.accept(null, object));
  }

  private <T extends HasMetadata> SharedIndexInformer<T> inform(
      SharedIndexInformer<T> informer, BiConsumer<T, T> changed, Consumer<T> deleted) {
    // fabric8's default handler stops an informer for good on an error; this one keeps going.
    informer.exceptionHandler((started, error) -> !closed);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(T object) {
            changed.accept(null, object);
          }

          @Override
          public void onUpdate(T before, T after) {
            changed.accept(before, after);
          }

          @Override
          public void onDelete(T object, boolean finalStateUnknown) {
            deleted.accept(object);
          }
        });
    informers.add(informer);
    try {
      informer.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("slice controller: informer did not start", e);
    }
    return informer;
  }

  private void podChanged(Pod before, Pod pod) {
    // A change of a Pod re-syncs the Services that select it, or selected it before the change
    // (GetServicesToUpdateOnPodChange; it also skips changes no endpoint shows, a no-op here).
    for (Service service : services.getStore().list()) {
      if (SliceModel.isManaged(service)
          && (SliceModel.selects(service, pod)
              || (before != null && SliceModel.selects(service, before)))) {
        enqueue(key(service));
      }
    }
  }

  private void sliceChanged(EndpointSlice slice) {
    // Events of the controller's own writes are expected; any other change to a managed slice
    // (a test editing or deleting one) makes it put the Service's slices right again.
    if (ownWrites.remove(version(slice))) {
      return;
    }
    String service = labels(slice).get(SliceModel.SERVICE_NAME_LABEL);
    if (service != null) {
      enqueue(slice.getMetadata().getNamespace() + "/" + service);
    }
  }

  private void sliceDeleted(EndpointSlice slice) {
    // Never matched against the controller's own writes: the mock's DELETED carries the version of
    // the slice's last write, and a write whose watch event came before its response leaves that
    // version behind in ownWrites. The real controller expects only the deletions it made itself
    // (endpointSliceTracker.ExpectDeletion); a re-sync after one of those finds nothing to do.
    String service = labels(slice).get(SliceModel.SERVICE_NAME_LABEL);
    if (service != null) {
      enqueue(slice.getMetadata().getNamespace() + "/" + service);
    }
  }

  private void enqueueAll() {
    if (services == null) {
      return;
    }
    for (Service service : services.getStore().list()) {
      enqueue(key(service));
    }
  }

  private void enqueue(String key) {
    synchronized (this) {
      if (closed) {
        return;
      }
      dirty.add(key);
      triggers.put(key, Instant.now());
    }
    run(this::drain);
  }

  /** On the controller's thread; nothing once it is closed. */
  private void run(Runnable task) {
    try {
      worker.execute(task);
    } catch (RejectedExecutionException closing) {
      // close() raced the event: nothing more is written.
    }
  }

  private void drain() {
    while (true) {
      String key;
      synchronized (this) {
        if (closed || paused || dirty.isEmpty()) {
          return;
        }
        key = dirty.iterator().next();
        dirty.remove(key);
      }
      try {
        sync(key);
        retries.remove(key);
      } catch (RuntimeException e) {
        int attempt = retries.merge(key, 1, Integer::sum);
        if (attempt <= MAX_RETRIES && !closed) {
          log.debug("slice controller: sync of {} failed (attempt {}), retrying", key, attempt, e);
          try {
            worker.schedule(() -> enqueue(key), 100, TimeUnit.MILLISECONDS);
          } catch (RejectedExecutionException closing) {
            return;
          }
        } else {
          log.warn("slice controller: sync of {} failed {} times, dropped", key, attempt, e);
        }
      }
    }
  }

  /**
   * Stops writing slices: changes are remembered, not acted on, until {@link #resume()}. A lagging
   * controller, as in a loaded cluster: Pods can be Ready and absent from their Service's slices.
   */
  public void pause() {
    paused = true;
  }

  /** Acts on everything that changed while paused. */
  public void resume() {
    paused = false;
    run(this::drain);
  }

  /**
   * Syncs every Service, and removes the slices of Services that no longer exist, on the
   * controller's thread; returns when the slices reflect the Pods and Services as they were when
   * this was called. Fails if a sync fails (the message says which).
   */
  public void awaitSynced() {
    awaitSynced(DEFAULT_TIMEOUT);
  }

  public void awaitSynced(Duration timeout) {
    if (closed || paused) {
      throw new IllegalStateException("slice controller is " + (closed ? "closed" : "paused"));
    }
    Future<?> done = worker.submit(this::syncAll);
    try {
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("slice controller: sync failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      done.cancel(true);
      throw new AssertionError("slice controller: no sync within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Services synced so far, by watch events or {@link #awaitSynced()}. */
  public long syncs() {
    return syncs.get();
  }

  /** Slices created, updated or deleted so far. */
  public long writes() {
    return writes.get();
  }

  /** The Service's slices managed by the controller, as the API server has them now. */
  public List<EndpointSlice> slicesOf(String namespace, String service) {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(namespace)
        .withLabel(SliceModel.SERVICE_NAME_LABEL, service)
        .withLabel(SliceModel.MANAGED_BY_LABEL, SliceModel.CONTROLLER_NAME)
        .list()
        .getItems();
  }

  private void syncAll() {
    List<Service> all = client.services().inAnyNamespace().list().getItems();
    for (Service service : all) {
      sync(key(service));
    }
    Set<String> namespaces = new LinkedHashSet<>();
    for (EndpointSlice slice :
        client.discovery().v1().endpointSlices().inAnyNamespace().list().getItems()) {
      namespaces.add(slice.getMetadata().getNamespace());
    }
    namespaces.forEach(this::collectGarbage);
  }

  private void sync(String key) {
    int slash = key.indexOf('/');
    String namespace = key.substring(0, slash);
    String name = key.substring(slash + 1);
    Service service = client.services().inNamespace(namespace).withName(name).get();
    syncs.incrementAndGet();
    if (service == null) {
      collectGarbage(namespace);
      return;
    }
    if (!SliceModel.isManaged(service)) {
      return;
    }
    List<Pod> pods =
        client
            .pods()
            .inNamespace(namespace)
            .withLabels(service.getSpec().getSelector())
            .list()
            .getItems()
            .stream()
            .filter(pod -> SliceModel.selects(service, pod))
            .toList();
    Map<String, Node> nodes = new HashMap<>();
    for (Pod pod : pods) {
      String nodeName = pod.getSpec().getNodeName();
      if (nodeName != null && !nodeName.isEmpty() && !nodes.containsKey(nodeName)) {
        Node node = client.nodes().withName(nodeName).get();
        if (node != null) {
          nodes.put(nodeName, node);
        }
      }
    }
    List<EndpointSlice> existing =
        slicesOf(namespace, name).stream()
            .filter(slice -> slice.getMetadata().getDeletionTimestamp() == null)
            .toList();
    Plan plan = reconciler.reconcile(service, pods, nodes, existing);
    String triggerTime = triggers.getOrDefault(key, Instant.now()).toString();
    for (Draft draft : plan.creates()) {
      create(namespace, service.getMetadata().getName(), draft, triggerTime);
    }
    for (Draft draft : plan.updates()) {
      GenericKubernetesResource written =
          client.resource(resource(namespace, draft, triggerTime)).update();
      ownWrites.add(version(written));
      writes.incrementAndGet();
    }
    for (Draft draft : plan.deletes()) {
      delete(namespace, draft.name);
    }
  }

  private void create(String namespace, String service, Draft draft, String triggerTime) {
    // The real controller uses generateName "<service>-" (five random characters follow); the
    // mock would append "-<uuid>", so the name is made here, in the API server's alphabet.
    for (int attempt = 0; ; attempt++) {
      draft.name = service + "-" + suffix();
      try {
        GenericKubernetesResource written =
            client.resource(resource(namespace, draft, triggerTime)).create();
        ownWrites.add(version(written));
        writes.incrementAndGet();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= 5) {
          throw e;
        }
      }
    }
  }

  private void delete(String namespace, String name) {
    client.discovery().v1().endpointSlices().inNamespace(namespace).withName(name).delete();
    writes.incrementAndGet();
  }

  /** The garbage collector: slices owned by a Service that no longer exists are deleted. */
  private void collectGarbage(String namespace) {
    Set<String> uids = new LinkedHashSet<>();
    for (Service service : client.services().inNamespace(namespace).list().getItems()) {
      uids.add(service.getMetadata().getUid());
    }
    for (EndpointSlice slice :
        client.discovery().v1().endpointSlices().inNamespace(namespace).list().getItems()) {
      List<OwnerReference> owners = slice.getMetadata().getOwnerReferences();
      boolean orphan =
          owners != null
              && !owners.isEmpty()
              && owners.stream()
                  .allMatch(o -> "Service".equals(o.getKind()) && !uids.contains(o.getUid()));
      if (orphan) {
        delete(namespace, slice.getMetadata().getName());
      }
    }
  }

  private String suffix() {
    StringBuilder suffix = new StringBuilder(5);
    for (int i = 0; i < 5; i++) {
      suffix.append(NAME_ALPHABET.charAt(random.nextInt(NAME_ALPHABET.length())));
    }
    return suffix.toString();
  }

  /**
   * The slice as the API server returns it: a slice without ports has {@code "ports": null}, and
   * one without endpoints {@code "endpoints": null} (Go's nil slices survive storage as null),
   * which fabric8 reads back as a null list. A typed {@link EndpointSlice} cannot carry those
   * nulls.
   */
  private static GenericKubernetesResource resource(
      String namespace, Draft draft, String triggerTime) {
    Map<String, String> annotations = new java.util.LinkedHashMap<>(draft.annotations);
    annotations.put(SliceModel.TRIGGER_TIME_ANNOTATION, triggerTime);
    EndpointSlice slice =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(draft.name)
            .withResourceVersion(draft.resourceVersion)
            .withLabels(draft.labels)
            .withAnnotations(annotations)
            .withOwnerReferences(draft.owners)
            .endMetadata()
            .withAddressType(draft.addressType)
            .withPorts(draft.ports.stream().map(SliceController::port).toList())
            .withEndpoints(draft.endpoints.stream().map(SliceController::endpoint).toList())
            .build();
    GenericKubernetesResource resource =
        Serialization.unmarshal(Serialization.asJson(slice), GenericKubernetesResource.class);
    if (draft.ports.isEmpty()) {
      resource.getAdditionalProperties().put("ports", null);
    }
    if (draft.endpoints.isEmpty()) {
      resource.getAdditionalProperties().put("endpoints", null);
    }
    return resource;
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort port(PortSpec port) {
    return new EndpointPortBuilder()
        .withName(port.name())
        .withPort(port.port())
        .withProtocol(port.protocol())
        .withAppProtocol(port.appProtocol())
        .build();
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.Endpoint endpoint(Ep ep) {
    return new EndpointBuilder()
        .withAddresses(ep.addresses())
        .withHostname(ep.hostname())
        .withNodeName(ep.nodeName())
        .withZone(ep.zone())
        .withNewConditions()
        .withReady(ep.ready())
        .withServing(ep.serving())
        .withTerminating(ep.terminating())
        .endConditions()
        .withNewTargetRef()
        .withKind("Pod")
        .withNamespace(ep.namespace())
        .withName(ep.name())
        .withUid(ep.uid())
        .endTargetRef()
        .build();
  }

  private static String key(HasMetadata object) {
    return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
  }

  private static String version(HasMetadata object) {
    return key(object) + "@" + object.getMetadata().getResourceVersion();
  }

  private static Map<String, String> labels(HasMetadata object) {
    return Objects.requireNonNullElse(object.getMetadata().getLabels(), Map.of());
  }

  /**
   * Stops syncing (a sync under way finishes first), drops the controller's connections to the mock
   * abruptly, then releases the client.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      dirty.clear();
    }
    // Delayed retries still run after shutdown and find the controller closed.
    worker.shutdown();
    try {
      worker.awaitTermination(30, TimeUnit.SECONDS);
      proxy.close();
    } catch (Exception e) {
      log.debug("slice controller: closing its proxy failed", e);
    }
    informers.forEach(SharedIndexInformer::stop);
    client.close();
  }
}
