package dev.routesync.kube.translate;

import java.util.Locale;

/** Why part of a Kubernetes object was left out of the table; a metric label. */
public enum SkipReason {
  /** An EndpointSlice without the {@code kubernetes.io/service-name} label. */
  NO_SERVICE_LABEL,
  /** An FQDN EndpointSlice: sidecars route to IPs, so these are counted and left out. */
  FQDN,
  /** An address type other than IPv4, IPv6 or FQDN, or none. */
  UNKNOWN_ADDRESS_TYPE,
  /** An endpoint with no address, or an address that is not a valid IP of the slice's family. */
  INVALID_IP,
  /**
   * A port without a number or with one outside 1..65535; the whole slice or subset is left out.
   */
  INVALID_PORT,
  /** An object without a name or namespace. */
  INVALID_METADATA,
  /**
   * A {@code type: ExternalName} Service without an external name, or with one that is no DNS name
   * ({@link ExternalNames}: longer than 253 characters, {@code *.example.com}, markup): it is not
   * served.
   */
  INVALID_EXTERNAL_NAME,
  /**
   * A value the table cannot hold as given ({@link dev.routesync.table.TableLimits}): more than
   * 1,024 ports, or a string of more than 1,024 bytes. The least is cut that keeps the table true
   * ({@link OverLimits}); the warning says what.
   */
  OVER_STATE_LIMITS;

  /** The metric label value, e.g. {@code invalid_ip}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
