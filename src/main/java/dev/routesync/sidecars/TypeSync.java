package dev.routesync.sidecars;

/**
 * One resource type of a stream (lds, rds, cds, eds; services for a Watch).
 *
 * @param sentVersion the table version of the latest response sent, 0 if none
 * @param ackedVersion that of the latest one acknowledged, 0 if none
 */
public record TypeSync(String type, long sentVersion, long ackedVersion) {}
