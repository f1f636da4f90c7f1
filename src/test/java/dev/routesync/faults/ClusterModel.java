package dev.routesync.faults;

import dev.routesync.kube.translate.SliceTranslator;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Conditions;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The test's own copy of what the API server holds (Services and EndpointSlices), the random writes
 * a schedule makes to it and to a server together, and what the table must hold for a set of
 * objects, computed from scratch and independently of the agent's caches.
 *
 * <p>Writes are drawn from this model, never from a server listing, so a seed replays the same
 * writes whatever the timing. Label flips are made as the EndpointSlice controller makes them: a
 * Service's labels are copied to its slices, so flipping the Service's opt-in label flips its
 * slices' too; a slice's own label can also flip alone (a controller lagging, a hand edit).
 */
final class ClusterModel {

  /** What a write did to which Service; disqualifies the Service from "existed throughout". */
  enum Write {
    SERVICE_CREATE,
    SERVICE_UPDATE,
    SERVICE_DELETE,
    SERVICE_LABEL_FLIP,
    SLICE_CREATE,
    SLICE_UPDATE,
    SLICE_DELETE,
    SLICE_LABEL_FLIP;

    /** A deletion or a label flip: the Service may leave the agent's view, legitimately. */
    boolean removes() {
      return this == SERVICE_DELETE
          || this == SERVICE_LABEL_FLIP
          || this == SLICE_DELETE
          || this == SLICE_LABEL_FLIP;
    }

    boolean onSlices() {
      return name().startsWith("SLICE_");
    }
  }

  /** One write made, for the failure message: what, to which object. */
  record Done(Write write, String object) {
    @Override
    public String toString() {
      return write + " " + object;
    }
  }

  /** One table entry as the agent must publish it. */
  record Entry(List<Endpoint> endpoints, List<Port> ports) {}

  private static final List<String> NAMESPACES = List.of("ns1", "ns2");
  private static final List<String> SERVICES = List.of("a", "b", "c", "d");

  private final Map<String, Service> services = new TreeMap<>();
  private final Map<String, EndpointSlice> slices = new TreeMap<>();
  private int sliceCounter;
  private int markers;

  /** A starting cluster: every Service labelled, with one or two slices of ready pods. */
  void seed(Random random, MockCluster server) {
    for (String namespace : NAMESPACES) {
      for (String name : SERVICES) {
        put(server, service(namespace, name, true, random));
        int count = 1 + random.nextInt(2);
        for (int i = 0; i < count; i++) {
          put(server, slice(namespace, name, null, true, random, true));
        }
      }
    }
  }

  /** Copies every object into another (empty) server: an API server restarted with our data. */
  void copyTo(MockCluster server) {
    services.values().forEach(server::apply);
    slices.values().forEach(server::apply);
  }

  /** One random write, to this model and {@code server}. */
  Done write(Random random, MockCluster server) {
    Write write = pick(random);
    switch (write) {
      case SERVICE_CREATE -> {
        String namespace = pickOf(random, NAMESPACES);
        String name = pickOf(random, SERVICES);
        Service service = service(namespace, name, random.nextInt(4) != 0, random);
        put(server, service);
        return new Done(write, key(service));
      }
      case SERVICE_UPDATE -> {
        Service old = pickOf(random, new ArrayList<>(services.values()));
        Service service =
            service(namespace(old), old.getMetadata().getName(), labelled(old), random);
        put(server, service);
        return new Done(write, key(service));
      }
      case SERVICE_DELETE -> {
        Service old = pickOf(random, new ArrayList<>(services.values()));
        remove(server, old);
        // Usually the garbage collector takes its slices too; sometimes they outlive it a while.
        if (random.nextBoolean()) {
          for (EndpointSlice slice : slicesOf(namespace(old), old.getMetadata().getName())) {
            remove(server, slice);
          }
        }
        return new Done(write, key(old));
      }
      case SERVICE_LABEL_FLIP -> {
        Service old = pickOf(random, new ArrayList<>(services.values()));
        boolean labelled = !labelled(old);
        put(server, withLabel(old, labelled));
        for (EndpointSlice slice : slicesOf(namespace(old), old.getMetadata().getName())) {
          put(server, withLabel(slice, labelled));
        }
        return new Done(write, key(old) + (labelled ? " +label" : " -label"));
      }
      case SLICE_CREATE -> {
        String namespace = pickOf(random, NAMESPACES);
        String service = pickOf(random, SERVICES);
        Service owner = services.get(namespace + "/" + service);
        boolean labelled = owner == null ? random.nextInt(4) != 0 : labelled(owner);
        EndpointSlice slice = slice(namespace, service, null, labelled, random, false);
        put(server, slice);
        return new Done(write, key(slice));
      }
      case SLICE_UPDATE -> {
        EndpointSlice old = pickOf(random, new ArrayList<>(slices.values()));
        EndpointSlice slice =
            slice(
                namespace(old),
                serviceOf(old),
                old.getMetadata().getName(),
                labelled(old),
                random,
                false);
        put(server, slice);
        return new Done(write, key(slice));
      }
      case SLICE_DELETE -> {
        EndpointSlice old = pickOf(random, new ArrayList<>(slices.values()));
        remove(server, old);
        return new Done(write, key(old));
      }
      case SLICE_LABEL_FLIP -> {
        EndpointSlice old = pickOf(random, new ArrayList<>(slices.values()));
        put(server, withLabel(old, !labelled(old)));
        return new Done(write, key(old) + (labelled(old) ? " -label" : " +label"));
      }
      default -> throw new IllegalStateException(write.toString());
    }
  }

  /**
   * A write the table must show: a new labelled slice whose ready pod has an IP no other pod has,
   * in a Service chosen at random.
   */
  Done visibleWrite(Random random, MockCluster server) {
    String namespace = pickOf(random, NAMESPACES);
    String service = pickOf(random, SERVICES);
    Service owner = services.get(namespace + "/" + service);
    if (owner != null && !labelled(owner)) {
      put(server, withLabel(owner, true));
    }
    int marker = markers++;
    EndpointSlice slice =
        Slices.slice(
            namespace,
            service + "-" + sliceCounter++,
            service,
            true,
            8080,
            List.of(
                new Pod(
                    "m" + marker,
                    "10.1." + marker / 250 + "." + (1 + marker % 250),
                    "node-0",
                    "zone-0",
                    Conditions.READY)));
    put(server, slice);
    return new Done(Write.SLICE_CREATE, key(slice));
  }

  private Write pick(Random random) {
    while (true) {
      Write write = Write.values()[random.nextInt(Write.values().length)];
      boolean needsService =
          write == Write.SERVICE_UPDATE
              || write == Write.SERVICE_DELETE
              || write == Write.SERVICE_LABEL_FLIP;
      boolean needsSlice =
          write == Write.SLICE_UPDATE
              || write == Write.SLICE_DELETE
              || write == Write.SLICE_LABEL_FLIP;
      if ((needsService && services.isEmpty()) || (needsSlice && slices.isEmpty())) {
        continue;
      }
      // Creates twice as likely as the rest, so the cluster does not wither away.
      if ((write == Write.SERVICE_CREATE || write == Write.SLICE_CREATE) || random.nextBoolean()) {
        return write;
      }
    }
  }

  /** The Service a write (by its description) touched, as {@code namespace/name}. */
  static String serviceOf(Done done) {
    String object = done.object().split(" ")[0];
    if (!done.write().onSlices()) {
      return object;
    }
    // Slices are named <service>-<n>.
    int slash = object.indexOf('/');
    String name = object.substring(slash + 1);
    return object.substring(0, slash) + "/" + name.substring(0, name.lastIndexOf('-'));
  }

  /** What the table must hold for the model's objects. */
  Map<ServiceKey, Entry> expected() {
    return expected(new ArrayList<>(services.values()), new ArrayList<>(slices.values()));
  }

  /**
   * What the table must hold for these objects: each Service with a labelled slice, its endpoints
   * translated from its labelled slices together, and the ports its Service declares when that
   * Service is labelled (the Services watch has the same selector), sorted.
   */
  static Map<ServiceKey, Entry> expected(List<Service> services, List<EndpointSlice> slices) {
    Map<ServiceKey, List<EndpointSlice>> byService = new TreeMap<>();
    for (EndpointSlice slice : slices) {
      if (labelled(slice)) {
        SliceTranslator.serviceKeyOf(slice)
            .ifPresent(key -> byService.computeIfAbsent(key, k -> new ArrayList<>()).add(slice));
      }
    }
    Map<ServiceKey, List<Port>> ports = new TreeMap<>();
    for (Service service : services) {
      if (labelled(service)) {
        ports.put(
            new ServiceKey(namespace(service), service.getMetadata().getName()), ports(service));
      }
    }
    Map<ServiceKey, Entry> expected = new TreeMap<>();
    byService.forEach(
        (key, list) ->
            expected.put(
                key,
                new Entry(
                    SliceTranslator.translate(list).endpoints(),
                    ports.getOrDefault(key, List.of()))));
    return expected;
  }

  /** The table's entries in the same shape. */
  static Map<ServiceKey, Entry> published(RoutingTable table) {
    Map<ServiceKey, Entry> published = new TreeMap<>();
    for (ServiceEndpoints service : table.services()) {
      published.put(service.key(), new Entry(service.endpoints(), service.servicePorts()));
    }
    return published;
  }

  /** The Services the table must list with at least one endpoint. */
  Set<String> nonEmpty() {
    Set<String> keys = new TreeSet<>();
    expected()
        .forEach(
            (key, entry) -> {
              if (!entry.endpoints().isEmpty()) {
                keys.add(key.toString());
              }
            });
    return keys;
  }

  private static List<Port> ports(Service service) {
    List<Port> ports = new ArrayList<>();
    for (ServicePort port : service.getSpec().getPorts()) {
      ports.add(
          new Port(
              port.getName() == null ? "" : port.getName(),
              port.getPort(),
              port.getProtocol() == null ? "TCP" : port.getProtocol()));
    }
    Collections.sort(ports);
    return ports;
  }

  private List<EndpointSlice> slicesOf(String namespace, String service) {
    List<EndpointSlice> found = new ArrayList<>();
    for (EndpointSlice slice : slices.values()) {
      if (namespace(slice).equals(namespace) && serviceOf(slice).equals(service)) {
        found.add(slice);
      }
    }
    return found;
  }

  private void put(MockCluster server, Service service) {
    services.put(key(service), service);
    server.apply(service);
  }

  private void put(MockCluster server, EndpointSlice slice) {
    slices.put(key(slice), slice);
    server.apply(slice);
  }

  private void remove(MockCluster server, Service service) {
    services.remove(key(service));
    server.delete(service);
  }

  private void remove(MockCluster server, EndpointSlice slice) {
    slices.remove(key(slice));
    server.delete(slice);
  }

  private static Service service(String namespace, String name, boolean labelled, Random random) {
    List<ServicePort> ports = new ArrayList<>();
    ports.add(new ServicePortBuilder().withName("http").withPort(80).withProtocol("TCP").build());
    if (random.nextBoolean()) {
      ports.add(
          new ServicePortBuilder()
              .withName("grpc")
              .withPort(9000 + random.nextInt(3))
              .withProtocol("TCP")
              .build());
    }
    Map<String, String> labels = new TreeMap<>();
    labels.put("app", name);
    if (labelled) {
      labels.put(Slices.MESH_LABEL, "true");
    }
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withSelector(Map.of("app", name))
        .withPorts(ports)
        .endSpec()
        .build();
  }

  /**
   * A slice of {@code service}, named afresh unless {@code name} is given; with {@code ready} every
   * pod is ready (the starting cluster), else each pod's conditions are drawn.
   */
  private EndpointSlice slice(
      String namespace,
      String service,
      String name,
      boolean labelled,
      Random random,
      boolean ready) {
    String sliceName = name != null ? name : service + "-" + sliceCounter++;
    List<Pod> pods = new ArrayList<>();
    int count = ready ? 1 + random.nextInt(3) : random.nextInt(4);
    for (int i = 0; i < count; i++) {
      // A small IP pool, so the same IP often lands in two slices of one Service.
      int host = 1 + random.nextInt(6);
      Conditions conditions =
          ready || random.nextInt(3) != 0
              ? Conditions.READY
              : Conditions.values()[random.nextInt(Conditions.values().length)];
      pods.add(
          new Pod(
              "p" + host, "10.0.0." + host, "node-" + host % 2, "zone-" + host % 3, conditions));
    }
    return Slices.slice(namespace, sliceName, service, labelled, 8080, pods);
  }

  private static Service withLabel(Service service, boolean labelled) {
    Map<String, String> labels = new TreeMap<>(service.getMetadata().getLabels());
    if (labelled) {
      labels.put(Slices.MESH_LABEL, "true");
    } else {
      labels.remove(Slices.MESH_LABEL);
    }
    return new ServiceBuilder(service).editMetadata().withLabels(labels).endMetadata().build();
  }

  private static EndpointSlice withLabel(EndpointSlice slice, boolean labelled) {
    Map<String, String> labels = new TreeMap<>(slice.getMetadata().getLabels());
    if (labelled) {
      labels.put(Slices.MESH_LABEL, "true");
    } else {
      labels.remove(Slices.MESH_LABEL);
    }
    return new EndpointSliceBuilder(slice).editMetadata().withLabels(labels).endMetadata().build();
  }

  private static boolean labelled(io.fabric8.kubernetes.api.model.HasMetadata object) {
    Map<String, String> labels = object.getMetadata().getLabels();
    return labels != null && "true".equals(labels.get(Slices.MESH_LABEL));
  }

  private static String namespace(io.fabric8.kubernetes.api.model.HasMetadata object) {
    return object.getMetadata().getNamespace();
  }

  private static String serviceOf(EndpointSlice slice) {
    return slice.getMetadata().getLabels().get(SliceTranslator.SERVICE_NAME_LABEL);
  }

  private static String key(io.fabric8.kubernetes.api.model.HasMetadata object) {
    return namespace(object) + "/" + object.getMetadata().getName();
  }

  private static <T> T pickOf(Random random, List<T> items) {
    return items.get(random.nextInt(items.size()));
  }
}
