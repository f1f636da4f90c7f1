package dev.routesync.testing;

import dev.routesync.testing.SliceModel.Ep;
import dev.routesync.testing.SliceModel.Options;
import dev.routesync.testing.SliceModel.PortSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the EndpointSlice controller's {@code Reconciler.Reconcile} decides for one Service: which
 * slices to create, update and delete so that its slices list the Service's Pods, grouped by the
 * ports each Pod resolves. Transcribed from kubernetes {@code
 * staging/src/k8s.io/endpointslice/reconciler.go} ({@code reconcileByAddressType}, {@code
 * reconcileByPortMapping}, the placeholder slice, {@code finalize}'s turning creates into updates
 * of slices that would be deleted). Pure: the caller reads the inputs and writes the plan.
 *
 * <p>Left out, as outside issue 9: topology hints, traffic distribution, metrics, events. Endpoints
 * are placed in Pod-name order where the real controller pops them from a set in no order.
 */
final class SliceReconciler {

  private final Options options;

  SliceReconciler(Options options) {
    this.options = options;
  }

  /** A slice as it will be written; {@code name} is null for a slice still to be created. */
  static final class Draft {
    String name;
    String resourceVersion;
    final String addressType;
    final List<PortSpec> ports;
    List<Ep> endpoints;
    Map<String, String> labels;
    final Map<String, String> annotations;
    final List<OwnerReference> owners;

    Draft(
        String name,
        String resourceVersion,
        String addressType,
        List<PortSpec> ports,
        List<Ep> endpoints,
        Map<String, String> labels,
        Map<String, String> annotations,
        List<OwnerReference> owners) {
      this.name = name;
      this.resourceVersion = resourceVersion;
      this.addressType = addressType;
      this.ports = List.copyOf(ports);
      this.endpoints = new ArrayList<>(endpoints);
      this.labels = new LinkedHashMap<>(labels);
      this.annotations = new LinkedHashMap<>(annotations);
      this.owners = List.copyOf(owners);
    }

    Draft copy() {
      return new Draft(
          name, resourceVersion, addressType, ports, endpoints, labels, annotations, owners);
    }

    static Draft of(EndpointSlice slice) {
      List<PortSpec> ports = new ArrayList<>();
      if (slice.getPorts() != null) {
        for (EndpointPort port : slice.getPorts()) {
          ports.add(
              new PortSpec(
                  Objects.toString(port.getName(), ""),
                  port.getPort() == null ? 0 : port.getPort(),
                  SliceModel.protocol(port.getProtocol()),
                  port.getAppProtocol()));
        }
      }
      ports.sort(null);
      List<Ep> endpoints = new ArrayList<>();
      if (slice.getEndpoints() != null) {
        for (Endpoint endpoint : slice.getEndpoints()) {
          endpoints.add(ep(endpoint));
        }
      }
      return new Draft(
          slice.getMetadata().getName(),
          slice.getMetadata().getResourceVersion(),
          slice.getAddressType(),
          ports,
          endpoints,
          Objects.requireNonNullElse(slice.getMetadata().getLabels(), Map.of()),
          Objects.requireNonNullElse(slice.getMetadata().getAnnotations(), Map.of()),
          Objects.requireNonNullElse(slice.getMetadata().getOwnerReferences(), List.of()));
    }

    private static Ep ep(Endpoint endpoint) {
      ObjectReference ref = endpoint.getTargetRef();
      var conditions = endpoint.getConditions();
      return new Ep(
          Objects.requireNonNullElse(endpoint.getAddresses(), List.of()),
          endpoint.getHostname(),
          ref == null ? null : ref.getNamespace(),
          ref == null ? null : ref.getName(),
          ref == null ? null : ref.getUid(),
          endpoint.getNodeName(),
          endpoint.getZone(),
          conditions == null ? null : conditions.getReady(),
          conditions == null ? null : conditions.getServing(),
          conditions == null ? null : conditions.getTerminating());
    }
  }

  /** The writes for one Service, and whether some Pod was left out for want of its Node. */
  record Plan(List<Draft> creates, List<Draft> updates, List<Draft> deletes, boolean nodeMissing) {

    boolean isEmpty() {
      return creates.isEmpty() && updates.isEmpty() && deletes.isEmpty();
    }
  }

  /**
   * @param pods the Pods the Service selects (any state: this filters)
   * @param nodes the Nodes that exist, by name
   * @param existing the Service's slices managed by the controller, none pending deletion
   */
  Plan reconcile(
      Service service, List<Pod> pods, Map<String, Node> nodes, List<EndpointSlice> existing) {
    List<Draft> creates = new ArrayList<>();
    List<Draft> updates = new ArrayList<>();
    List<Draft> deletes = new ArrayList<>();
    boolean[] nodeMissing = {false};
    List<String> types = SliceModel.addressTypes(service);
    Map<String, List<Draft>> byType = new LinkedHashMap<>();
    for (EndpointSlice slice : existing) {
      Draft draft = Draft.of(slice);
      if (!types.contains(draft.addressType)) {
        deletes.add(draft);
      } else {
        byType.computeIfAbsent(draft.addressType, t -> new ArrayList<>()).add(draft);
      }
    }
    List<Pod> ordered =
        pods.stream().sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList();
    for (String type : types) {
      reconcileByAddressType(
          service,
          ordered,
          nodes,
          byType.getOrDefault(type, List.of()),
          type,
          creates,
          updates,
          deletes,
          nodeMissing);
    }
    return new Plan(creates, updates, deletes, nodeMissing[0]);
  }

  private void reconcileByAddressType(
      Service service,
      List<Pod> pods,
      Map<String, Node> nodes,
      List<Draft> existing,
      String addressType,
      List<Draft> allCreates,
      List<Draft> allUpdates,
      List<Draft> allDeletes,
      boolean[] nodeMissing) {
    List<Draft> creates = new ArrayList<>();
    List<Draft> updates = new ArrayList<>();
    List<Draft> deletes = new ArrayList<>();

    Map<List<PortSpec>, List<Draft>> existingByPorts = new LinkedHashMap<>();
    for (Draft slice : existing) {
      if (ownedBy(slice, service)) {
        existingByPorts.computeIfAbsent(slice.ports, p -> new ArrayList<>()).add(slice);
      } else {
        deletes.add(slice);
      }
    }

    Map<List<PortSpec>, LinkedHashMap<String, Ep>> desiredByPorts = new LinkedHashMap<>();
    boolean publishNotReady = Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses());
    for (Pod pod : pods) {
      if (!SliceModel.shouldBeInEndpoints(pod)) {
        continue;
      }
      List<PortSpec> ports = SliceModel.endpointPorts(service, pod, options);
      LinkedHashMap<String, Ep> desired =
          desiredByPorts.computeIfAbsent(ports, p -> new LinkedHashMap<>());
      Node node = nodes.get(pod.getSpec().getNodeName());
      if (node == null && !publishNotReady) {
        // The real controller skips the Pod, reports an error and retries the Service later.
        nodeMissing[0] = true;
        continue;
      }
      Ep endpoint = SliceModel.endpoint(pod, node, service, addressType);
      if (!endpoint.addresses().isEmpty()) {
        desired.put(endpoint.id(), endpoint);
      }
    }

    for (Map.Entry<List<PortSpec>, LinkedHashMap<String, Ep>> group : desiredByPorts.entrySet()) {
      reconcileByPortMapping(
          service,
          existingByPorts.getOrDefault(group.getKey(), List.of()),
          group.getValue(),
          group.getKey(),
          addressType,
          creates,
          updates,
          deletes);
    }
    for (Map.Entry<List<PortSpec>, List<Draft>> group : existingByPorts.entrySet()) {
      if (!desiredByPorts.containsKey(group.getKey())) {
        deletes.addAll(group.getValue());
      }
    }

    // When no slice would exist, the Service gets a placeholder: no ports, no endpoints.
    if (existing.size() == deletes.size() && creates.isEmpty()) {
      Draft placeholder = newSlice(service, List.of(), addressType);
      if (deletes.size() == 1 && isSamePlaceholder(deletes.get(0), placeholder)) {
        deletes.clear();
      } else {
        creates.add(placeholder);
      }
    }

    // finalize: a create reuses a slice that would be deleted (same address type, owned).
    for (Iterator<Draft> it = deletes.iterator(); it.hasNext() && !creates.isEmpty(); ) {
      Draft doomed = it.next();
      Draft created = creates.get(creates.size() - 1);
      if (doomed.addressType.equals(created.addressType) && ownedBy(doomed, service)) {
        created.name = doomed.name;
        created.resourceVersion = doomed.resourceVersion;
        creates.remove(creates.size() - 1);
        updates.add(created);
        it.remove();
      }
    }
    if (service.getMetadata().getDeletionTimestamp() == null) {
      allCreates.addAll(creates);
    }
    allUpdates.addAll(updates);
    allDeletes.addAll(deletes);
  }

  private void reconcileByPortMapping(
      Service service,
      List<Draft> existing,
      LinkedHashMap<String, Ep> desired,
      List<PortSpec> ports,
      String addressType,
      List<Draft> creates,
      List<Draft> updates,
      List<Draft> deletes) {
    int max = options.maxEndpointsPerSlice();
    Map<String, Draft> byName = new LinkedHashMap<>();
    Set<String> unchanged = new LinkedHashSet<>();
    Set<String> toUpdate = new LinkedHashSet<>();
    Set<String> toDelete = new LinkedHashSet<>();

    // 1. Keep the endpoints still desired (in their new version), drop the others.
    for (Draft slice : existing) {
      byName.put(slice.name, slice);
      List<Ep> kept = new ArrayList<>();
      boolean endpointUpdated = false;
      for (Ep endpoint : slice.endpoints) {
        Ep wanted = desired.get(endpoint.id());
        if (wanted != null) {
          kept.add(wanted);
          if (!wanted.sameBeyondId(endpoint)) {
            endpointUpdated = true;
          }
          desired.remove(endpoint.id());
        }
      }
      SliceModel.Labels labels = SliceModel.sliceLabels(slice.labels, service);
      if (endpointUpdated || slice.endpoints.size() != kept.size()) {
        if (kept.isEmpty()) {
          toDelete.add(slice.name);
        } else {
          Draft copy = slice.copy();
          copy.endpoints = kept;
          copy.labels = labels.labels();
          byName.put(copy.name, copy);
          toUpdate.add(copy.name);
        }
      } else if (labels.changed()) {
        Draft copy = slice.copy();
        copy.labels = labels.labels();
        byName.put(copy.name, copy);
        toUpdate.add(copy.name);
      } else {
        unchanged.add(slice.name);
      }
    }

    // 2. Fill the slices being updated, fullest first.
    if (!desired.isEmpty() && !toUpdate.isEmpty()) {
      List<Draft> slices = new ArrayList<>(toUpdate.stream().map(byName::get).toList());
      slices.sort(Comparator.comparingInt((Draft d) -> d.endpoints.size()).reversed());
      for (Draft slice : slices) {
        fill(slice, desired, max);
      }
    }

    // 3. Put the rest into one unchanged slice that has room, or into new slices.
    while (!desired.isEmpty()) {
      Draft target = null;
      if (desired.size() < max && !unchanged.isEmpty()) {
        target = sliceToFill(unchanged.stream().map(byName::get).toList(), desired.size(), max);
      }
      if (target == null) {
        target = newSlice(service, ports, addressType);
      } else {
        target = target.copy();
        byName.put(target.name, target);
      }
      fill(target, desired, max);
      if (target.name != null) {
        toUpdate.add(target.name);
        unchanged.remove(target.name);
      } else {
        creates.add(target);
      }
    }
    toUpdate.forEach(name -> updates.add(byName.get(name)));
    toDelete.forEach(name -> deletes.add(byName.get(name)));
  }

  private static void fill(Draft slice, LinkedHashMap<String, Ep> desired, int max) {
    Iterator<Ep> it = desired.values().iterator();
    while (it.hasNext() && slice.endpoints.size() < max) {
      slice.endpoints.add(it.next());
      it.remove();
    }
  }

  /** {@code getSliceToFill}: the slice that will be closest to full after taking {@code count}. */
  private static Draft sliceToFill(List<Draft> slices, int count, int max) {
    int closest = max;
    Draft best = null;
    for (Draft slice : slices) {
      int diff = max - (count + slice.endpoints.size());
      if (diff >= 0 && diff < closest) {
        closest = diff;
        best = slice;
        if (diff == 0) {
          return best;
        }
      }
    }
    return best;
  }

  private static Draft newSlice(Service service, List<PortSpec> ports, String addressType) {
    OwnerReference owner = new OwnerReference();
    owner.setApiVersion("v1");
    owner.setKind("Service");
    owner.setName(service.getMetadata().getName());
    owner.setUid(service.getMetadata().getUid());
    owner.setController(true);
    owner.setBlockOwnerDeletion(true);
    return new Draft(
        null,
        null,
        addressType,
        ports,
        List.of(),
        SliceModel.sliceLabels(Map.of(), service).labels(),
        Map.of(),
        List.of(owner));
  }

  static boolean ownedBy(Draft slice, Service service) {
    return slice.owners.stream()
        .anyMatch(
            o ->
                Objects.equals(o.getUid(), service.getMetadata().getUid())
                    && "Service".equals(o.getKind())
                    && "v1".equals(o.getApiVersion()));
  }

  /** {@code placeholderSliceCompare}: labels, owners, address type, no ports, no endpoints. */
  private static boolean isSamePlaceholder(Draft slice, Draft placeholder) {
    return slice.addressType.equals(placeholder.addressType)
        && slice.ports.isEmpty()
        && slice.endpoints.isEmpty()
        && slice.labels.equals(placeholder.labels)
        && slice.owners.size() == placeholder.owners.size()
        && slice.owners.stream()
            .allMatch(
                o ->
                    placeholder.owners.stream()
                        .anyMatch(
                            p ->
                                Objects.equals(p.getUid(), o.getUid())
                                    && Objects.equals(p.getKind(), o.getKind())
                                    && Objects.equals(p.getName(), o.getName())
                                    && Objects.equals(p.getApiVersion(), o.getApiVersion())
                                    && Objects.equals(p.getController(), o.getController())
                                    && Objects.equals(
                                        p.getBlockOwnerDeletion(), o.getBlockOwnerDeletion())));
  }
}
