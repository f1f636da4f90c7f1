/**
 * The drift detector: this node's Ready pods that are not ready endpoints of a Service port
 * selecting them, the run-time catch of the seed's incident (a renamed container port left eight
 * Ready pods outside their Service, and {@code kubectl rollout status} said all was well).
 *
 * <p>{@link dev.routesync.drift.DriftDetector} is fed by three watches ({@link
 * dev.routesync.kube.watch.WatchSink}s: this node's Pods, the mesh-managed Services, their
 * EndpointSlices), decides with the pure {@code rules/} module, and reports all at once to its
 * gauges ({@link dev.routesync.drift.DriftObserver}, implemented in {@code observe/}), the Event
 * recorder ({@link dev.routesync.drift.DriftEvents}), one WARN line per new drift, and an immutable
 * {@link dev.routesync.drift.DriftSnapshot} that {@code serve/} reads without locking. It is a
 * facade over package-private parts with one job each: {@code NodePods} (this node's pods), {@code
 * Membership} (the Services and which of those pods each selects, through {@code SelectorIndex}),
 * {@code SliceStore} (the slices by Service), {@code PendingWork} (the debounced round's work),
 * {@code PortVerdicts} (one pod's verdicts, gauges, snapshot) and {@code GraceTimer}.
 *
 * <p>Flow: watch -&gt; drift -&gt; (metrics, events, serve). Nothing here depends on {@code
 * serve/}, {@code observe/} or Vert.x (ArchUnit holds it): the scheduler, observer and events are
 * injected, so a benchmark drives the detector directly. Threading: the sync context, no locks.
 */
package dev.routesync.drift;
