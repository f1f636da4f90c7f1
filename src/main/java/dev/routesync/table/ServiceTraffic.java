package dev.routesync.table;

/**
 * The Service settings that say where its traffic goes, from the Services watch: {@code
 * spec.trafficDistribution}, {@code spec.internalTrafficPolicy}, and its kind (headless, {@code
 * ExternalName}). Routing follows the endpoints' hints, which the EndpointSlice controller writes
 * from {@code trafficDistribution}; the setting itself is carried so that clients can show it.
 * {@code internalTrafficPolicy: Local} restricts a node to its own endpoints. A headless Service
 * ({@code clusterIP: None}) routes like any other, and one that declares no ports accepts a port
 * number as the pods' own port (what its DNS name gives a client). An {@code ExternalName} Service
 * has no endpoints: its traffic goes to the external DNS name.
 *
 * @param trafficDistribution as the Service says ({@code PreferClose}, {@code PreferSameZone},
 *     {@code PreferSameNode}, or a value this agent does not know), or null when unset
 * @param internalLocal whether {@code internalTrafficPolicy} is {@code Local}
 * @param headless whether {@code spec.clusterIP} is {@code None}
 * @param externalName {@code spec.externalName} of a {@code type: ExternalName} Service (at most
 *     {@value #MAX_EXTERNAL_NAME_CHARS} characters), or null for every other type
 */
public record ServiceTraffic(
    String trafficDistribution, boolean internalLocal, boolean headless, String externalName) {

  /** Unset settings (also a Service not known from the Services watch). */
  public static final ServiceTraffic DEFAULT = new ServiceTraffic(null, false, false, null);

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

  /** Settings of a Service that is neither headless nor ExternalName. */
  public ServiceTraffic(String trafficDistribution, boolean internalLocal) {
    this(trafficDistribution, internalLocal, false, null);
  }

  /** The settings, sharing {@link #DEFAULT} when both are unset. */
  public static ServiceTraffic of(String trafficDistribution, boolean internalLocal) {
    return of(trafficDistribution, internalLocal, false, null);
  }

  /** The settings, sharing {@link #DEFAULT} when all are unset. */
  public static ServiceTraffic of(
      String trafficDistribution, boolean internalLocal, boolean headless, String externalName) {
    return trafficDistribution == null && !internalLocal && !headless && externalName == null
        ? DEFAULT
        : new ServiceTraffic(trafficDistribution, internalLocal, headless, externalName);
  }

  /** Whether the Service is {@code type: ExternalName}: an alias, with no endpoints of its own. */
  public boolean isExternalName() {
    return externalName != null;
  }
}
