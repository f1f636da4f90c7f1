package dev.routesync.xds;

import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;

/**
 * What every ADS stream reads: the published table, whether it may be served yet, and the shared
 * encodings.
 */
record XdsSources(
    TableView table, TableTrust trust, AssignmentCache assignments, WildcardClusters clusters) {}
