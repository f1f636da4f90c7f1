package dev.routesync.drift;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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

  private static final Comparator<NodeSlice> BY_NAME = Comparator.comparing(NodeSlice::name);

  /** A slice's identity: its records' own strings, no key text built per slice. */
  private record SliceKey(String namespace, String name) {}

  private final Map<SliceKey, NodeSlice> byKey = new HashMap<>();
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
    SliceKey key = keyOf(slice);
    if (key == null) {
      return;
    }
    ServiceRef owner = slice.owner();
    NodeSlice before = byKey.get(key);
    if (before != null && !before.owner().equals(owner)) {
      remove(key); // its service-name label changed
    }
    if (owner != null) {
      byKey.put(key, slice);
      byService.compute(owner, (service, slices) -> with(slices, slice));
      work.slicesChanged.add(owner);
      work.scheduleRound();
    }
  }

  void deleted(String namespace, String name) {
    if (namespace != null && name != null) {
      remove(new SliceKey(namespace, name));
      work.scheduleRound();
    }
  }

  /**
   * A whole list: slices not in it are gone; only new or changed ones count as changes. A slice
   * listed again unchanged (the same version and content) is not a change, but the listed record
   * replaces the one held: the informer's store holds that one too, so only one copy is kept.
   */
  void listed(Collection<NodeSlice> listed) {
    Set<SliceKey> keys = new HashSet<>();
    listed.forEach(s -> keys.add(keyOf(s)));
    for (SliceKey known : List.copyOf(byKey.keySet())) {
      if (!keys.contains(known)) {
        remove(known);
      }
    }
    for (NodeSlice slice : listed) {
      SliceKey key = keyOf(slice);
      NodeSlice known = key == null ? null : byKey.get(key);
      if (known == null || slice.resourceVersion() == null || !known.equals(slice)) {
        upserted(slice);
      } else if (known != slice) {
        byKey.put(key, slice);
        byService.computeIfPresent(known.owner(), (service, slices) -> with(slices, slice));
      }
    }
  }

  private void remove(SliceKey key) {
    NodeSlice old = byKey.remove(key);
    if (old == null) {
      return;
    }
    ServiceRef owner = old.owner();
    byService.computeIfPresent(owner, (service, slices) -> without(slices, old.name()));
    work.slicesChanged.add(owner);
  }

  private static SliceKey keyOf(NodeSlice slice) {
    return slice.namespace() == null || slice.name() == null
        ? null
        : new SliceKey(slice.namespace(), slice.name());
  }

  private static List<NodeSlice> with(List<NodeSlice> slices, NodeSlice slice) {
    if (slices == null || slices.size() == 1 && slices.get(0).name().equals(slice.name())) {
      return List.of(slice);
    }
    List<NodeSlice> next = new ArrayList<>(slices.size() + 1);
    for (NodeSlice held : slices) {
      if (!held.name().equals(slice.name())) {
        next.add(held);
      }
    }
    next.add(slice);
    next.sort(BY_NAME);
    return List.copyOf(next);
  }

  // Null (the Service has no slices left) removes the entry.
  private static List<NodeSlice> without(List<NodeSlice> slices, String name) {
    List<NodeSlice> next = new ArrayList<>(slices.size());
    for (NodeSlice held : slices) {
      if (!held.name().equals(name)) {
        next.add(held);
      }
    }
    return next.isEmpty() ? null : List.copyOf(next);
  }
}
