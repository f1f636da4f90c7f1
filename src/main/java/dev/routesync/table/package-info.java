/**
 * The routing table: immutable, versioned values and their single writer. Plain Java over
 * persistent collections; this package imports neither fabric8 nor Vert.x (ArchitectureTest holds
 * that), so it can be reasoned about, tested and benchmarked on its own.
 */
package dev.routesync.table;
