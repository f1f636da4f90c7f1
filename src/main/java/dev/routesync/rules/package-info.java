/**
 * The Kubernetes rules that decide which pods become a Service port's endpoints, mirrored from the
 * EndpointSlice controller ({@code FindPort} in {@code pkg/api/v1/pod/util.go}, and {@code
 * podToEndpoint}, {@code ShouldPodBeInEndpoints} and {@code getEndpointPorts} in {@code
 * staging/src/k8s.io/endpointslice}). One pure module for the three features that catch the seed's
 * incident: {@code routesync lint} (pod templates, no cluster), {@code routesync gate} (a live
 * cluster) and the agent's drift detector (this node's pods).
 *
 * <p>Pure functions of fabric8 model objects: no state, no I/O, no clock, no logging; malformed
 * input (nulls anywhere) never throws. Depends on nothing else of routesync.
 */
package dev.routesync.rules;
