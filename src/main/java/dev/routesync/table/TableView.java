package dev.routesync.table;

/** Read access to the latest published {@link RoutingTable}; never blocks. */
@FunctionalInterface
public interface TableView {

  RoutingTable current();
}
