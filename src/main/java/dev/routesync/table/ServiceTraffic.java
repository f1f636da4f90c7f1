package dev.routesync.table;

/**
 * The Service settings that say where its traffic goes, from the Services watch: {@code
 * spec.trafficDistribution} and {@code spec.internalTrafficPolicy}. Routing follows the endpoints'
 * hints, which the EndpointSlice controller writes from {@code trafficDistribution}; the setting
 * itself is carried so that clients can show it. {@code internalTrafficPolicy: Local} restricts a
 * node to its own endpoints.
 *
 * @param trafficDistribution as the Service says ({@code PreferClose}, {@code PreferSameZone},
 *     {@code PreferSameNode}, or a value this agent does not know), or null when unset
 * @param internalLocal whether {@code internalTrafficPolicy} is {@code Local}
 */
public record ServiceTraffic(String trafficDistribution, boolean internalLocal) {

  /** Unset settings (also a Service not known from the Services watch). */
  public static final ServiceTraffic DEFAULT = new ServiceTraffic(null, false);

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

  /** The settings, sharing {@link #DEFAULT} when both are unset. */
  public static ServiceTraffic of(String trafficDistribution, boolean internalLocal) {
    return trafficDistribution == null && !internalLocal
        ? DEFAULT
        : new ServiceTraffic(trafficDistribution, internalLocal);
  }
}
