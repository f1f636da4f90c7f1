/**
 * Coalescing and reconciliation: watch events become dirty Service keys, batched on one Vert.x
 * context (no locks) and recomputed once per batch; only real changes publish a table version. Time
 * is injected ({@link dev.routesync.sync.Scheduler}) so tests drive a fake clock.
 */
package dev.routesync.sync;
