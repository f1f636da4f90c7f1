package dev.routesync.drift;

import dev.routesync.lists.NamedLists;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The EndpointSlices the slice watch delivers, as {@link NodeSlice}s filed under the Service their
 * {@value dev.routesync.rules.ControllerSlices#SERVICE_NAME_LABEL} label names; every change marks
 * that Service's slices changed in the {@link PendingWork}, so the round re-evaluates only that
 * Service's pods on this node.
 *
 * <p>Threading: the sync context.
 */
final class SliceStore {

  // namespace -> name -> slice: keyed by the records' own strings, so no key object per slice
  // (a (namespace, name) record was 24 bytes a slice, ~1 MiB at 40,000).
  private final Map<String, Map<String, NodeSlice>> byNamespace = new HashMap<>();
  // Each Service's slices, sorted by name, as an immutable list (most Services have one slice).
  private final Map<ServiceRef, List<NodeSlice>> byService = new HashMap<>();
  private final PendingWork work;

  SliceStore(PendingWork work) {
    this.work = work;
  }

  /** The Service's slices now (empty if it has none). */
  List<NodeSlice> of(ServiceRef service) {
    return byService.getOrDefault(service, List.of());
  }

  void upserted(NodeSlice slice) {
    if (slice.namespace() == null || slice.name() == null) {
      return;
    }
    ServiceRef owner = slice.owner();
    NodeSlice before = get(slice.namespace(), slice.name());
    if (before != null && !Objects.equals(before.owner(), owner)) {
      remove(slice.namespace(), slice.name()); // its service-name label changed
    }
    if (owner != null) {
      byNamespace
          .computeIfAbsent(slice.namespace(), ns -> new HashMap<>())
          .put(slice.name(), slice);
      byService.compute(
          owner, (service, slices) -> NamedLists.with(slices, slice, NodeSlice::name));
      work.slicesChanged.add(owner);
      work.scheduleRound();
    }
  }

  void deleted(String namespace, String name) {
    if (namespace != null && name != null) {
      remove(namespace, name);
      work.scheduleRound();
    }
  }

  /**
   * A whole list: slices not in it are gone; only new or changed ones count as changes. A slice
   * listed again unchanged (the same version and content) is not a change, but the listed record
   * replaces the one held: the informer's store holds that one too, so only one copy is kept.
   */
  void listed(Collection<NodeSlice> listed) {
    Map<String, Set<String>> names = new HashMap<>();
    for (NodeSlice slice : listed) {
      if (slice.namespace() != null && slice.name() != null) {
        names.computeIfAbsent(slice.namespace(), ns -> new HashSet<>()).add(slice.name());
      }
    }
    for (String namespace : List.copyOf(byNamespace.keySet())) {
      Set<String> listedHere = names.getOrDefault(namespace, Set.of());
      for (String name : List.copyOf(byNamespace.get(namespace).keySet())) {
        if (!listedHere.contains(name)) {
          remove(namespace, name);
        }
      }
    }
    for (NodeSlice slice : listed) {
      NodeSlice known = get(slice.namespace(), slice.name());
      if (known == null || slice.resourceVersion() == null || !known.equals(slice)) {
        upserted(slice);
      } else if (known != slice) {
        byNamespace.get(slice.namespace()).put(slice.name(), slice);
        byService.computeIfPresent(
            known.owner(), (service, slices) -> NamedLists.with(slices, slice, NodeSlice::name));
      }
    }
  }

  private NodeSlice get(String namespace, String name) {
    Map<String, NodeSlice> slices = namespace == null ? null : byNamespace.get(namespace);
    return slices == null ? null : slices.get(name);
  }

  private void remove(String namespace, String name) {
    Map<String, NodeSlice> slices = byNamespace.get(namespace);
    NodeSlice old = slices == null ? null : slices.remove(name);
    if (old == null) {
      return;
    }
    if (slices.isEmpty()) {
      byNamespace.remove(namespace);
    }
    ServiceRef owner = old.owner();
    byService.computeIfPresent(
        owner, (service, held) -> NamedLists.without(held, old.name(), NodeSlice::name));
    work.slicesChanged.add(owner);
  }
}
