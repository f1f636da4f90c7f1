/**
 * {@code routesync gate}: a deploy pipeline's check against the live cluster that every pod a
 * Service selects and should serve is a ready endpoint of each of the Service's ports, in the
 * EndpointSlice controller's slices. It catches the seed's incident (a renamed container port: 8
 * Ready pods, 0 endpoints, a green {@code kubectl rollout status}) at the first new pod, while the
 * old pods still serve.
 *
 * <p>The rules come from {@link dev.routesync.rules}; this package only watches (fabric8 informers
 * on Pods, Services and EndpointSlices of one namespace), evaluates snapshots of those caches
 * ({@link dev.routesync.gate.Evaluation}), keeps time ({@link dev.routesync.gate.GateRun}, on an
 * injected {@link dev.routesync.sync.Scheduler}) and prints the verdict.
 */
package dev.routesync.gate;
