/** Metrics (Prometheus names, {@code routesync_} prefix, base units) and readiness state. */
package dev.routesync.observe;
