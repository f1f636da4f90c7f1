package dev.routesync.kube.translate;

import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.TableLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Keeps what one translation makes within what a table holds ({@link TableLimits}, the bounds the
 * state file reads by), and tallies what it cut, for one {@link SkipReason#OVER_STATE_LIMITS} skip
 * per object (or per Service, for what only the merge of its objects puts over).
 *
 * <p>What is cut is the least that keeps the table true, so that one object the API server accepted
 * never makes every node's state file unwritable, nor takes more from clients than the table cannot
 * hold:
 *
 * <ul>
 *   <li><b>Ports over {@link TableLimits#MAX_PORTS}</b>, in a Service's declared ports or on one
 *       endpoint (a slice's list, an Endpoints subset's, or the union of an address's ports across
 *       slices, subsets and a dual-stack pod's two families): the first {@code MAX_PORTS} in the
 *       table's order (name, protocol, number) are kept, the rest left out, on the Service ({@code
 *       kube/ServicePorts}) and on every endpoint alike. The table is served per port, as
 *       kube-proxy programs each Service port on its own: a port left out is one route missing, and
 *       every port kept is served exactly, with all its endpoints. Skipping the endpoint instead
 *       would empty every port of a Service whose addresses are all over (one address in eleven
 *       slices of 100 ports), and skipping the Service would take all of them. The table's order is
 *       the one a Service's ports and each endpoint's share (the declared order is the Service's
 *       alone), so the names kept are the same on both.
 *   <li><b>A string over {@link TableLimits#MAX_STRING_BYTES}</b> among an endpoint's optional
 *       attributes (zone, node, pod name, a hint name): the value is left out (null, or not listed)
 *       and the endpoint kept. No node's zone (a label value, at most 63 characters), node name or
 *       pod name (at most 253) is that long, so the value could never match this node, a hint or a
 *       pod: leaving it out changes no routing decision, where skipping the endpoint would take a
 *       routable address from every client. (An endpoint whose only hint names are over-long reads
 *       as hint-less; the API server refuses such names.)
 *   <li><b>A port name or protocol over {@code MAX_STRING_BYTES}</b> (the API server refuses both):
 *       such a port cannot be left out or renamed without changing which port it is, so the slice
 *       or subset is left out, as for a port number out of range ({@link Ports}); such a port among
 *       a Service's declared ports is left out alone, as one of a number out of range is.
 * </ul>
 *
 * <p>Not thread-safe: one per translation.
 */
final class OverLimits {

  private final Supplier<String> object;
  private final String resourceVersion;
  private int cuts;
  private String first;

  /**
   * @param object {@code Kind namespace/name} the skip names
   * @param resourceVersion that object's version, or null
   */
  OverLimits(String object, String resourceVersion) {
    this(() -> object, resourceVersion);
  }

  /**
   * @param object what the skip names, made only if there is one: a merge runs on every recompute
   * @param resourceVersion that object's version, or null
   */
  OverLimits(Supplier<String> object, String resourceVersion) {
    this.object = object;
    this.resourceVersion = resourceVersion;
  }

  /**
   * {@code value}, or null when it is over a table string's bytes (tallied).
   *
   * @param what the attribute, for the warning: {@code "zone"}
   * @param of the endpoint's address, for the warning
   */
  String field(String value, String what, String of) {
    if (TableLimits.fits(value)) {
      return value;
    }
    cut(
        () ->
            what
                + " of "
                + of
                + " is "
                + count(TableLimits.utf8Bytes(value))
                + " bytes, over the "
                + count(TableLimits.MAX_STRING_BYTES)
                + " a table string holds: left out, the endpoint kept");
    return null;
  }

  /**
   * The first {@link TableLimits#MAX_PORTS} of {@code sorted} (tallied when there are more); {@code
   * sorted} itself when it fits.
   *
   * @param whose what holds the ports, for the warning: {@code "the slice"}
   */
  List<Port> ports(List<Port> sorted, String whose) {
    if (sorted.size() <= TableLimits.MAX_PORTS) {
      return sorted;
    }
    cut(() -> whose + " has " + count(sorted.size()) + " ports" + overPorts());
    return List.copyOf(sorted.subList(0, TableLimits.MAX_PORTS));
  }

  /**
   * {@code endpoints}, each with at most {@link TableLimits#MAX_PORTS} ports (the first, tallied);
   * the same list when none has more.
   *
   * @param across where the ports came together, for the warning: {@code "across the Service's
   *     objects"}
   */
  List<Endpoint> endpointPorts(List<Endpoint> endpoints, String across) {
    List<Endpoint> capped = null;
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint endpoint = endpoints.get(i);
      List<Port> ports = endpoint.ports();
      if (ports.size() <= TableLimits.MAX_PORTS) {
        if (capped != null) {
          capped.add(endpoint);
        }
        continue;
      }
      if (capped == null) {
        capped = new ArrayList<>(endpoints.subList(0, i));
      }
      cut(
          () ->
              endpoint.ip() + " carries " + count(ports.size()) + " ports " + across + overPorts());
      capped.add(endpoint.withPorts(ports.subList(0, TableLimits.MAX_PORTS)));
    }
    return capped == null ? endpoints : capped;
  }

  /** One skip for everything cut, naming the first cut and how many there were; none if none. */
  void addSkipTo(List<Skip> skips) {
    if (cuts == 0) {
      return;
    }
    skips.add(
        new Skip(
            SkipReason.OVER_STATE_LIMITS,
            object.get(),
            resourceVersion,
            cuts == 1 ? first : first + " (" + count(cuts) + " cuts in all)"));
  }

  private void cut(Supplier<String> detail) {
    if (cuts++ == 0) {
      first = detail.get();
    }
  }

  private static String overPorts() {
    return ", over the "
        + count(TableLimits.MAX_PORTS)
        + " a table entry holds: the first "
        + count(TableLimits.MAX_PORTS)
        + " by name kept";
  }

  private static String count(int n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
