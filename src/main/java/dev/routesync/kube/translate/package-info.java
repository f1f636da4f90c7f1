/**
 * Pure translation of EndpointSlices and legacy Endpoints into table records: functions of the
 * objects of one Service, with no state, no I/O, no clock and no logging, that never throw on
 * malformed input but return what they skipped. Depends only on {@code table} and the fabric8 model
 * classes (an ArchUnit rule holds that), so it is tested without a cluster and reused as is for new
 * watched kinds.
 */
package dev.routesync.kube.translate;
