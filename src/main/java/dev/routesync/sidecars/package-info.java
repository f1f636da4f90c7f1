/**
 * Each sidecar's sync state: one {@link dev.routesync.sidecars.SyncState} per open Watch or ADS
 * stream (who it is, what it was sent and acknowledged, its last NACK, how long it has been
 * behind), the registry of them ({@link dev.routesync.sidecars.Sidecars}) behind {@code GET
 * /v1/clients}, and the propagation latency from a change's trigger time to a client's ACK of the
 * version carrying it ({@link dev.routesync.sidecars.TriggerLedger}, {@link
 * dev.routesync.sidecars.PropagationHistogram}).
 *
 * <p>Plain Java over the table's keys: serve/ and xds/ write it from their event loops, the HTTP
 * API and the metrics read it. Every write is O(1) and allocation-free on the streams' paths.
 */
package dev.routesync.sidecars;
