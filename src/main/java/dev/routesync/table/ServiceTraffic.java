package dev.routesync.table;

/**
 * The Service settings that say where its traffic goes, from the Services watch: {@code
 * spec.trafficDistribution}, {@code spec.internalTrafficPolicy}, the first of {@code
 * spec.ipFamilies}, and its kind (headless, {@code ExternalName}). Routing follows the endpoints'
 * hints, which the EndpointSlice controller writes from {@code trafficDistribution}; the setting
 * itself is carried so that clients can show it. {@code internalTrafficPolicy: Local} restricts a
 * node to its own endpoints. The first IP family is a dual-stack pod's primary address (the one
 * clients try first). A headless Service ({@code clusterIP: None}) routes like any other, and one
 * that declares no ports accepts a port number as the pods' own port (what its DNS name gives a
 * client). An {@code ExternalName} Service has no endpoints: its traffic goes to the external DNS
 * name.
 *
 * @param trafficDistribution as the Service says ({@code PreferClose}, {@code PreferSameZone},
 *     {@code PreferSameNode}, or a value this agent does not know), or null when unset
 * @param internalLocal whether {@code internalTrafficPolicy} is {@code Local}
 * @param ipv6Primary whether {@code ipFamilies} starts with {@code IPv6}; false when it starts with
 *     {@code IPv4}, is empty, or the Service is not known (IPv4 first)
 * @param headless whether {@code spec.clusterIP} is {@code None}
 * @param externalName {@code spec.externalName} of a {@code type: ExternalName} Service (at most
 *     {@value #MAX_EXTERNAL_NAME_CHARS} characters), or null for every other type
 */
public record ServiceTraffic(
    String trafficDistribution,
    boolean internalLocal,
    boolean ipv6Primary,
    boolean headless,
    String externalName) {

  /** Unset settings (also a Service not known from the Services watch). */
  public static final ServiceTraffic DEFAULT = new ServiceTraffic(null, false, false, false, null);

  /** The cap on a kept {@code trafficDistribution}: the API server's is far below this. */
  public static final int MAX_DISTRIBUTION_CHARS = 64;

  /** A DNS name's longest spelling (RFC 1035); the API server refuses longer external names. */
  public static final int MAX_EXTERNAL_NAME_CHARS = 253;

  public ServiceTraffic {
    if (trafficDistribution != null) {
      trafficDistribution =
          trafficDistribution.length() > MAX_DISTRIBUTION_CHARS
              ? trafficDistribution.substring(0, MAX_DISTRIBUTION_CHARS)
              : trafficDistribution.intern();
    }
    if (externalName != null
        && (externalName.isEmpty() || externalName.length() > MAX_EXTERNAL_NAME_CHARS)) {
      throw new IllegalArgumentException(
          "an external name is 1 to " + MAX_EXTERNAL_NAME_CHARS + " characters");
    }
  }

  /** The settings, sharing {@link #DEFAULT} when both are unset; IPv4 first, a plain Service. */
  public static ServiceTraffic of(String trafficDistribution, boolean internalLocal) {
    return of(trafficDistribution, internalLocal, false, false, null);
  }

  /** The settings of a plain Service (neither headless nor ExternalName). */
  public static ServiceTraffic of(
      String trafficDistribution, boolean internalLocal, boolean ipv6Primary) {
    return of(trafficDistribution, internalLocal, ipv6Primary, false, null);
  }

  /** The settings of a Service whose first IP family is IPv4 (or unset). */
  public static ServiceTraffic of(
      String trafficDistribution, boolean internalLocal, boolean headless, String externalName) {
    return of(trafficDistribution, internalLocal, false, headless, externalName);
  }

  /** The settings, sharing {@link #DEFAULT} when all are unset. */
  public static ServiceTraffic of(
      String trafficDistribution,
      boolean internalLocal,
      boolean ipv6Primary,
      boolean headless,
      String externalName) {
    return trafficDistribution == null
            && !internalLocal
            && !ipv6Primary
            && !headless
            && externalName == null
        ? DEFAULT
        : new ServiceTraffic(
            trafficDistribution, internalLocal, ipv6Primary, headless, externalName);
  }

  /** Whether the Service is {@code type: ExternalName}: an alias, with no endpoints of its own. */
  public boolean isExternalName() {
    return externalName != null;
  }
}
