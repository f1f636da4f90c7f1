/**
 * The Kubernetes edge for EndpointSlices (or legacy Endpoints): what to watch ({@link
 * dev.routesync.kube.WatchedKind}, {@link dev.routesync.kube.ServiceIndex}), what an event means
 * ({@link dev.routesync.kube.ServiceEventSink}: dirty Service keys for the coalescer, and one batch
 * over every Service of both generations when a relist swaps in), the informers' compact store
 * ({@link dev.routesync.kube.ObjectStore}: each object translated once, no decoded object kept),
 * the per-Service view the reconciler reads ({@link dev.routesync.kube.ServiceCache}), and counting
 * what translation skipped. Keeping the watch alive (generations, backoff, relists, resync,
 * connectivity) is the generic {@link dev.routesync.kube.watch} package; the translation is pure
 * and lives in {@link dev.routesync.kube.translate}. fabric8 model classes do not leave these
 * packages.
 */
package dev.routesync.kube;
