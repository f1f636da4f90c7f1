package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import java.util.ArrayList;
import java.util.List;

/**
 * A Service's routable endpoints from its objects' {@link ObjectTranslation}s: the same merge as
 * translating all the objects together (each IP once, ports unioned, the ready copy winning; a
 * dual-stack pod's two addresses one endpoint, {@link DualStackPairs}), done from the stored
 * per-object results. A union of an address's ports over what a table entry holds is cut to its
 * first ports ({@link OverLimits}) and counted as one skip of the Service.
 */
public final class ServiceMerge {

  private ServiceMerge() {}

  /**
   * {@link #merge(List, ServiceTraffic)} for a Service whose settings are not known: a dual-stack
   * pod's IPv4 address is its primary, and no serving terminating endpoint is kept beside a ready
   * one.
   */
  public static Translation merge(List<ObjectTranslation> objects) {
    return merge(objects, ServiceTraffic.DEFAULT);
  }

  /** {@link #merge(List, ServiceTraffic, ServiceKey)} for a Service whose key is not known. */
  public static Translation merge(List<ObjectTranslation> objects, ServiceTraffic traffic) {
    return merge(objects, traffic, null);
  }

  /**
   * @param objects the Service's objects' translations, in a deterministic order (by object name)
   * @param traffic the Service's settings: with {@code ipv6Primary} a dual-stack pod's IPv6 address
   *     is its primary; with {@code internalLocal} ({@code internalTrafficPolicy: Local}) its
   *     serving terminating endpoints are kept beside the ready ones ({@link
   *     EndpointMerger#routableForLocal}), because each node chooses among its own; every other
   *     Service keeps the ready ones, or the serving terminating ones when none is ready
   * @param service the Service, named by the skip of a merge over the table's limits; null if not
   *     known
   */
  public static Translation merge(
      List<ObjectTranslation> objects, ServiceTraffic traffic, ServiceKey service) {
    boolean ipv6Primary = traffic.ipv6Primary();
    boolean internalLocal = traffic.internalLocal();
    if (objects.size() == 1) {
      return single(objects.get(0), ipv6Primary, internalLocal, service);
    }
    EndpointMerger merger = new EndpointMerger();
    List<Skip> skips = new ArrayList<>();
    for (ObjectTranslation object : objects) {
      object.endpoints().forEach(merger::add);
      skips.addAll(object.skips());
    }
    return new Translation(routable(merger, ipv6Primary, internalLocal, service, skips), skips);
  }

  // Each object's endpoints are within the table's limits (their translators cap them); only the
  // unions made here (an address in several objects, a dual-stack pod's two) can go over.
  private static List<Endpoint> routable(
      EndpointMerger merger,
      boolean ipv6Primary,
      boolean internalLocal,
      ServiceKey service,
      List<Skip> skips) {
    List<Endpoint> routable =
        internalLocal ? merger.routableForLocal(ipv6Primary) : merger.routable(ipv6Primary);
    // The merge is the Service's, not one object's: the skip names the Service. Without a version
    // it is counted once while the same cut stands.
    OverLimits limits = new OverLimits(() -> "Service " + (service == null ? "?" : service), null);
    routable = limits.endpointPorts(routable, "once its objects are merged");
    limits.addSkipTo(skips);
    return routable;
  }

  // The common case (one slice per Service): the object's list is already deduplicated and sorted,
  // and when every endpoint is ready and of one family (a healthy single-stack Service) it is the
  // routable list itself, so the table holds the very list the store holds instead of a second
  // copy of it.
  private static Translation single(
      ObjectTranslation object, boolean ipv6Primary, boolean internalLocal, ServiceKey service) {
    List<Endpoint> all = object.endpoints();
    boolean allReady = true;
    boolean oneFamily = true;
    for (Endpoint endpoint : all) {
      if (!endpoint.ready()) {
        allReady = false;
        break;
      }
      if (endpoint.isIpv4() != all.get(0).isIpv4()) {
        oneFamily = false;
        break;
      }
    }
    if (allReady && oneFamily) {
      return new Translation(all, object.skips());
    }
    EndpointMerger merger = new EndpointMerger();
    all.forEach(merger::add);
    List<Skip> skips = new ArrayList<>(object.skips());
    return new Translation(routable(merger, ipv6Primary, internalLocal, service, skips), skips);
  }
}
