/** Metrics (Prometheus names, {@code routesync_} prefix, base units). */
package dev.routesync.observe;
