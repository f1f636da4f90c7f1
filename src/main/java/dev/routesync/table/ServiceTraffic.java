package dev.routesync.table;

/**
 * The Service settings that say where its traffic goes, from the Services watch: {@code
 * spec.trafficDistribution}, {@code spec.internalTrafficPolicy} and the first of {@code
 * spec.ipFamilies}. Routing follows the endpoints' hints, which the EndpointSlice controller writes
 * from {@code trafficDistribution}; the setting itself is carried so that clients can show it.
 * {@code internalTrafficPolicy: Local} restricts a node to its own endpoints. The first IP family
 * is a dual-stack pod's primary address (the one clients try first).
 *
 * @param trafficDistribution as the Service says ({@code PreferClose}, {@code PreferSameZone},
 *     {@code PreferSameNode}, or a value this agent does not know), or null when unset
 * @param internalLocal whether {@code internalTrafficPolicy} is {@code Local}
 * @param ipv6Primary whether {@code ipFamilies} starts with {@code IPv6}; false when it starts with
 *     {@code IPv4}, is empty, or the Service is not known (IPv4 first)
 */
public record ServiceTraffic(
    String trafficDistribution, boolean internalLocal, boolean ipv6Primary) {

  /** Unset settings (also a Service not known from the Services watch). */
  public static final ServiceTraffic DEFAULT = new ServiceTraffic(null, false, false);

  /** The cap on a kept {@code trafficDistribution}: the API server's is far below this. */
  public static final int MAX_DISTRIBUTION_CHARS = 64;

  public ServiceTraffic {
    if (trafficDistribution != null) {
      trafficDistribution =
          trafficDistribution.length() > MAX_DISTRIBUTION_CHARS
              ? trafficDistribution.substring(0, MAX_DISTRIBUTION_CHARS)
              : trafficDistribution.intern();
    }
  }

  /** Settings of a Service whose first IP family is IPv4 (or unset). */
  public ServiceTraffic(String trafficDistribution, boolean internalLocal) {
    this(trafficDistribution, internalLocal, false);
  }

  /** The settings, sharing {@link #DEFAULT} when all are unset; IPv4 first. */
  public static ServiceTraffic of(String trafficDistribution, boolean internalLocal) {
    return of(trafficDistribution, internalLocal, false);
  }

  /** The settings, sharing {@link #DEFAULT} when all are unset. */
  public static ServiceTraffic of(
      String trafficDistribution, boolean internalLocal, boolean ipv6Primary) {
    return trafficDistribution == null && !internalLocal && !ipv6Primary
        ? DEFAULT
        : new ServiceTraffic(trafficDistribution, internalLocal, ipv6Primary);
  }
}
