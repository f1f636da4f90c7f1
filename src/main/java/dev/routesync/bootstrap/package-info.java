/**
 * {@code routesync bootstrap}: the file an xDS client needs to find the agent. gRPC's {@code
 * xds:///} resolver (Java, Go, C++, Python, Node) reads a bootstrap JSON naming the xDS server and
 * the node; Envoy reads a bootstrap that declares a static cluster for its ADS server. Both point
 * at the agent's Unix socket on the same node.
 *
 * <p>The builders ({@link dev.routesync.bootstrap.GrpcBootstrap}, {@link
 * dev.routesync.bootstrap.EnvoyBootstrap}) are pure: values in, JSON text out. Only {@link
 * dev.routesync.bootstrap.ZoneLookup} talks to the API server (one GET of this node, for its zone
 * label), and only {@link dev.routesync.bootstrap.BootstrapFile} writes a file. Nothing here knows
 * the xDS server itself: the contract between the two is the socket path and the resource names.
 */
package dev.routesync.bootstrap;
