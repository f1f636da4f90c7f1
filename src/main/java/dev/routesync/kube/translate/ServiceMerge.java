package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import java.util.ArrayList;
import java.util.List;

/**
 * A Service's routable endpoints from its objects' {@link ObjectTranslation}s: the same merge as
 * translating all the objects together (each IP once, ports unioned, the ready copy winning), done
 * from the stored per-object results.
 */
public final class ServiceMerge {

  private ServiceMerge() {}

  /**
   * @param objects the Service's objects' translations, in a deterministic order (by object name)
   */
  public static Translation merge(List<ObjectTranslation> objects) {
    if (objects.size() == 1) {
      return single(objects.get(0));
    }
    EndpointMerger merger = new EndpointMerger();
    List<Skip> skips = new ArrayList<>();
    for (ObjectTranslation object : objects) {
      object.endpoints().forEach(merger::add);
      skips.addAll(object.skips());
    }
    return new Translation(merger.routable(), skips);
  }

  // The common case (one slice per Service): the object's list is already deduplicated and sorted,
  // and when every endpoint is ready (a healthy Service) it is the routable list itself, so the
  // table holds the very list the store holds instead of a second copy of it.
  private static Translation single(ObjectTranslation object) {
    List<Endpoint> all = object.endpoints();
    boolean allReady = true;
    for (Endpoint endpoint : all) {
      if (!endpoint.ready()) {
        allReady = false;
        break;
      }
    }
    if (allReady) {
      return new Translation(all, object.skips());
    }
    EndpointMerger merger = new EndpointMerger();
    all.forEach(merger::add);
    return new Translation(merger.routable(), object.skips());
  }
}
