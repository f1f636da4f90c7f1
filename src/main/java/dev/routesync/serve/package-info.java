/**
 * Serving: the HTTP/JSON read API on the Unix socket sidecars use, and the admin listener for
 * kubelet probes and Prometheus, with the {@link dev.routesync.serve.Readiness} those probes
 * report. Reads the published table only; never blocks on the writer.
 */
package dev.routesync.serve;
