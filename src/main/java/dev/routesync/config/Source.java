package dev.routesync.config;

/** Which Kubernetes resource the agent reads endpoints from. */
public enum Source {
  /** {@code discovery.k8s.io/v1} EndpointSlices: the default, on every supported cluster. */
  ENDPOINTSLICES,
  /** Core {@code v1} Endpoints: for legacy clusters only. */
  ENDPOINTS
}
