package dev.routesync.drift;

import static dev.routesync.drift.ObjectKeys.keyOf;
import static dev.routesync.drift.ObjectKeys.ownerOf;
import static dev.routesync.drift.ObjectKeys.sameVersion;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The EndpointSlices the slice watch delivers, filed under the Service their {@value
 * dev.routesync.rules.ControllerSlices#SERVICE_NAME_LABEL} label names; every change marks that
 * Service's slices changed in the {@link PendingWork}, so the round re-evaluates only that
 * Service's pods on this node.
 *
 * <p>Threading: the sync context.
 */
final class SliceStore {

  private final Map<ServiceRef, Map<String, EndpointSlice>> byService = new HashMap<>();
  private final Map<String, ServiceRef> owners = new HashMap<>(); // "ns/slice" -> Service
  private final PendingWork work;

  SliceStore(PendingWork work) {
    this.work = work;
  }

  /** The Service's slices now (empty if it has none). */
  Collection<EndpointSlice> of(ServiceRef service) {
    return byService.getOrDefault(service, Map.of()).values();
  }

  void upserted(EndpointSlice slice) {
    String key = keyOf(slice);
    if (key == null) {
      return;
    }
    ServiceRef owner = ownerOf(slice);
    ServiceRef before = owners.get(key);
    if (before != null && !before.equals(owner)) {
      remove(key); // its service-name label changed
    }
    if (owner != null) {
      byService.computeIfAbsent(owner, s -> new HashMap<>()).put(key, slice);
      owners.put(key, owner);
      work.slicesChanged.add(owner);
      work.scheduleRound();
    }
  }

  void deleted(EndpointSlice slice) {
    String key = keyOf(slice);
    if (key != null) {
      remove(key);
      work.scheduleRound();
    }
  }

  /** A whole list: slices not in it are gone; only new or changed ones count as changes. */
  void listed(Collection<EndpointSlice> listed) {
    Set<String> keys = new HashSet<>();
    listed.forEach(s -> keys.add(keyOf(s)));
    for (String known : List.copyOf(owners.keySet())) {
      if (!keys.contains(known)) {
        remove(known);
      }
    }
    for (EndpointSlice slice : listed) {
      ServiceRef owner = owners.get(keyOf(slice));
      EndpointSlice known =
          owner == null ? null : byService.getOrDefault(owner, Map.of()).get(keyOf(slice));
      if (known == null || !sameVersion(known, slice)) {
        upserted(slice);
      }
    }
  }

  private void remove(String key) {
    ServiceRef owner = owners.remove(key);
    if (owner == null) {
      return;
    }
    Map<String, EndpointSlice> ofOwner = byService.get(owner);
    if (ofOwner != null) {
      ofOwner.remove(key);
      if (ofOwner.isEmpty()) {
        byService.remove(owner);
      }
    }
    work.slicesChanged.add(owner);
  }
}
