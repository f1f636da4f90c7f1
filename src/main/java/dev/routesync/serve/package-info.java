/**
 * Serving: the HTTP/JSON read API on the Unix socket sidecars use, and the admin listener for
 * kubelet probes and Prometheus, with the {@link dev.routesync.serve.Readiness} those probes
 * report. Reads the published table only; never blocks on the writer. Every answer from the table
 * says how fresh it is ({@link dev.routesync.table.FreshnessView}, {@link
 * dev.routesync.serve.StaleSignal} for Watch streams), and Status answers at any time.
 */
package dev.routesync.serve;
