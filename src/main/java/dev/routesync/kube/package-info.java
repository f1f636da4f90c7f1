/**
 * The Kubernetes edge for EndpointSlices (or legacy Endpoints): what to watch ({@link
 * dev.routesync.kube.WatchedKind}, {@link dev.routesync.kube.ServiceIndex}), what an event means
 * ({@link dev.routesync.kube.ServiceEventSink}: dirty Service keys for the coalescer, and one batch
 * over every Service of both generations when a relist swaps in), the informers' compact store
 * ({@link dev.routesync.kube.ObjectStore}: each object translated once, no decoded object kept),
 * the per-Service view the reconciler reads ({@link dev.routesync.kube.ServiceCache}), and counting
 * what translation skipped. Keeping the watch alive (generations, backoff, relists, resync,
 * connectivity) is the generic {@link dev.routesync.kube.watch} package; the translation is pure
 * and lives in {@link dev.routesync.kube.translate}. The fabric8 model stays on the Kubernetes
 * side: besides these packages only the controller's rules ({@code rules/}), the drift detector,
 * {@code lint}, {@code gate}, the demo and the composition root read it; the table and everything
 * that serves it see only our own records (ArchitectureTest holds both).
 */
package dev.routesync.kube;
