package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a wildcard CDS subscriber (Envoy's "all clusters") gets: a cluster for every port of every
 * Service. Computed once per table version, shared by all streams; {@link Snapshot#content} changes
 * only when the list of clusters does, so a version that moves only endpoints sends no CDS.
 */
final class WildcardClusters {

  /**
   * @param version the table version this was computed from
   * @param content equal for equal cluster lists: what a stream compares with what it last sent
   * @param names the cluster names, in table order
   * @param clusters the encoded clusters, in the same order
   * @param external each ExternalName Service's external name, in table order: its clusters are
   *     LOGICAL_DNS clusters to that host, so a changed one changes the list's content too
   */
  record Snapshot(
      long version, long content, List<String> names, List<Any> clusters, List<String> external) {}

  private final AtomicReference<Snapshot> latest = new AtomicReference<>();
  // Distinct lists get distinct ids, even when two streams compute them at once.
  private final AtomicLong contents = new AtomicLong();

  /** The clusters of {@code current} (or of a newer table, which is as good). */
  Snapshot of(RoutingTable current) {
    Snapshot last = latest.get();
    if (last != null && last.version() >= current.version()) {
      return last;
    }
    List<String> names = new ArrayList<>();
    List<String> external = new ArrayList<>();
    for (ServiceEndpoints service : current.services()) {
      names.addAll(XdsResources.clusterNames(service));
      if (service.traffic().isExternalName()) {
        external.add(service.traffic().externalName());
      }
    }
    Snapshot next;
    if (last != null && last.names().equals(names) && last.external().equals(external)) {
      next =
          new Snapshot(
              current.version(), last.content(), last.names(), last.clusters(), last.external());
    } else {
      List<Any> clusters = new ArrayList<>(names.size());
      for (String name : names) {
        clusters.add(Any.pack(XdsResources.cluster(name, current)));
      }
      long content = contents.incrementAndGet();
      next =
          new Snapshot(
              current.version(),
              content,
              List.copyOf(names),
              List.copyOf(clusters),
              List.copyOf(external));
    }
    // A racing stream may have stored a newer one: keep the newest.
    latest.accumulateAndGet(next, (a, b) -> a == null || b.version() > a.version() ? b : a);
    return latest.get();
  }
}
