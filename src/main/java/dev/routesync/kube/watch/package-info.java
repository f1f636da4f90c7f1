/**
 * Watching one Kubernetes resource kind, whatever it is and whoever consumes it: {@link
 * dev.routesync.kube.watch.ResourceWatch} runs {@link dev.routesync.kube.watch.Generation}s of
 * informers described by a {@link dev.routesync.kube.watch.ResourceSpec} (kind, namespaces,
 * selectors, indexes), retries failures with a jittered {@link dev.routesync.kube.watch.Backoff},
 * relists beside the served cache after an outage longer than {@code --relist-after} ({@link
 * dev.routesync.kube.watch.ConnectivityCheck} samples it into {@link
 * dev.routesync.kube.watch.Connectivity}), every jittered resync ({@link
 * dev.routesync.kube.watch.ResyncTimer}) and after a silence of {@code --watch-silence} on a watch
 * that looks connected ({@link dev.routesync.kube.watch.SilenceWatchdog}), and hands the served
 * generation and its events to a {@link dev.routesync.kube.watch.WatchSink}. It knows nothing of
 * Services, the coalescer or the table (an ArchUnit rule holds it to that), so a Pods or Services
 * watch is a new spec and sink, not a copy.
 */
package dev.routesync.kube.watch;
