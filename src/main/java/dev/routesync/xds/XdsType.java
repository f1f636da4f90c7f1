package dev.routesync.xds;

import java.util.Optional;

/** The four xDS resource types the agent serves, by their type URLs. */
public enum XdsType {
  LISTENER("type.googleapis.com/envoy.config.listener.v3.Listener", "lds", true),
  ROUTE("type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "rds", false),
  CLUSTER("type.googleapis.com/envoy.config.cluster.v3.Cluster", "cds", true),
  ENDPOINT("type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment", "eds", false);

  private final String typeUrl;
  private final String label;
  private final boolean fullState;

  XdsType(String typeUrl, String label, boolean fullState) {
    this.typeUrl = typeUrl;
    this.label = label;
    this.fullState = fullState;
  }

  public String typeUrl() {
    return typeUrl;
  }

  /** The metric label: lds, rds, cds, eds. */
  public String label() {
    return label;
  }

  /**
   * Whether a state-of-the-world response must list every subscribed resource (LDS, CDS: a missing
   * one means deleted), rather than only the changed ones (RDS, EDS).
   */
  public boolean fullState() {
    return fullState;
  }

  /** The type of {@code typeUrl}, or empty for a type the agent does not serve (SDS, ...). */
  public static Optional<XdsType> ofUrl(String typeUrl) {
    for (XdsType type : values()) {
      if (type.typeUrl.equals(typeUrl)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }
}
