/**
 * xDS on the agent's socket: the Aggregated Discovery Service (state of the world and delta), so
 * that Envoy and proxyless gRPC clients ({@code xds:///name}) route with the agent's table
 * unmodified.
 *
 * <p>It reads the published table ({@code table/}) and nothing upstream of it; {@code serve/} hosts
 * it on the same listeners as {@code routesync.v1.Registry}. Listener, route and cluster resources
 * are pure functions of the names clients ask for ({@link dev.routesync.xds.XdsNames}); only the
 * endpoint assignments follow the table, so a change to a Service's endpoints costs one EDS message
 * per stream that follows it and nothing else.
 */
package dev.routesync.xds;
