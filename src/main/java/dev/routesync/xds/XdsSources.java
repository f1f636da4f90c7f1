package dev.routesync.xds;

import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;

/**
 * What every ADS stream reads: the published table, whether it may be served yet, the shared
 * encodings, and the peers' shares of the limits.
 */
record XdsSources(
    TableView table,
    TableTrust trust,
    ClusterAssignments assignments,
    WildcardClusters clusters,
    PeerBudgets budgets) {

  /** With the limits of this JVM's heap. */
  XdsSources(
      TableView table,
      TableTrust trust,
      ClusterAssignments assignments,
      WildcardClusters clusters) {
    this(table, trust, assignments, clusters, new PeerBudgets(XdsLimits.ofThisHeap()));
  }
}
