package dev.routesync.xds;

import dev.routesync.table.KubernetesNames;
import dev.routesync.table.ServiceKey;
import java.util.Optional;

/**
 * Reads the names xDS clients ask for. A proxyless gRPC channel to {@code xds:///cart.shop:8080}
 * asks for the listener {@code cart.shop:8080}; the accepted spellings are {@code <svc>.<ns>},
 * {@code <svc>.<ns>.svc} and {@code <svc>.<ns>.svc.<cluster domain>}, each optionally followed by
 * {@code :<port>}, where the port is a Service port number or name; {@code
 * <svc>.<ns>.svc.clusterset.local} is a multi-cluster name and refused ({@link #isClusterset}).
 * Cluster and EDS names are the canonical spelling ({@link XdsTarget#clusterName()}), which reads
 * back through the same rules.
 *
 * <p>Names come from clients: anything else is no target (never an exception), and nothing here
 * allocates more than the name's own length.
 */
public final class XdsNames {

  /**
   * Longer than any valid name (a 253-character host, a colon, a port); longer ones are not read.
   */
  public static final int MAX_NAME_LENGTH = 320;

  /**
   * The multi-cluster domain (KEP-1645, Multi-Cluster Services): {@code
   * <svc>.<ns>.svc.clusterset.local} names a {@code ServiceImport}, whose endpoints are those of
   * every cluster that exports the Service. This agent serves this cluster's Services only, so such
   * a name is refused, never read as this cluster's Service of the same name.
   */
  public static final String CLUSTERSET_DOMAIN = KubernetesNames.CLUSTERSET_DOMAIN;

  private static final String CLUSTERSET_SUFFIX = ".svc." + CLUSTERSET_DOMAIN;

  private XdsNames() {}

  /**
   * Whether {@code name} is a multi-cluster name ({@code <svc>.<ns>.svc.clusterset.local}, with or
   * without a port): refused everywhere, never served ({@link #CLUSTERSET_DOMAIN}).
   */
  public static boolean isClusterset(String name) {
    if (name == null || name.length() > MAX_NAME_LENGTH) {
      return false;
    }
    int colon = name.lastIndexOf(':');
    String host = colon >= 0 ? name.substring(0, colon) : name;
    // DNS names are case-insensitive, and a trailing dot is the same name made absolute.
    if (host.endsWith(".")) {
      host = host.substring(0, host.length() - 1);
    }
    return host.regionMatches(
        /* ignoreCase= */ true,
        host.length() - CLUSTERSET_SUFFIX.length(),
        CLUSTERSET_SUFFIX,
        0,
        CLUSTERSET_SUFFIX.length());
  }

  /**
   * The Service and port {@code name} points at, or empty when it names none. A multi-cluster name
   * ({@link #isClusterset}) names none.
   */
  public static Optional<XdsTarget> parse(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      return Optional.empty();
    }
    if (isClusterset(name)) {
      return Optional.empty();
    }
    String host = name;
    String port = "";
    int colon = name.lastIndexOf(':');
    if (colon >= 0) {
      host = name.substring(0, colon);
      port = name.substring(colon + 1);
      if (!validPort(port)) {
        return Optional.empty();
      }
    }
    int first = host.indexOf('.');
    if (first <= 0) {
      return Optional.empty();
    }
    int second = host.indexOf('.', first + 1);
    String service = host.substring(0, first);
    String namespace = second < 0 ? host.substring(first + 1) : host.substring(first + 1, second);
    if (second >= 0) {
      String rest = host.substring(second + 1);
      // <svc>.<ns>.svc or <svc>.<ns>.svc.<cluster domain>
      if (!rest.equals("svc")
          && !(rest.startsWith("svc.") && KubernetesNames.isDns1123Subdomain(rest.substring(4)))) {
        return Optional.empty();
      }
    }
    if (!KubernetesNames.isDns1123Label(service) || !KubernetesNames.isDns1123Label(namespace)) {
      return Optional.empty();
    }
    return Optional.of(new XdsTarget(new ServiceKey(namespace, service), port));
  }

  // A Service port number (1-65535, no leading zero) or a port name (a DNS-1123 label, which
  // includes IANA service names).
  private static boolean validPort(String port) {
    if (port.isEmpty()) {
      return false;
    }
    if (Character.isDigit(port.charAt(0))) {
      if (port.length() > 5 || port.charAt(0) == '0') {
        return false;
      }
      for (int i = 0; i < port.length(); i++) {
        if (!Character.isDigit(port.charAt(i))) {
          return false;
        }
      }
      int number = Integer.parseInt(port);
      return number >= 1 && number <= 65535;
    }
    return KubernetesNames.isDns1123Label(port);
  }
}
