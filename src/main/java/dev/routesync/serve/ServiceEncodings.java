package dev.routesync.serve;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;

/**
 * Where Watch streams get a Service's {@code routesync.v1.ServiceEndpoints} message as bytes. The
 * agent's are {@link EncodedServices}, shared by every stream; the fan-out benchmark supplies one
 * that encodes per stream, to measure what sharing saves.
 *
 * <p>Threading: {@link #encoded} runs on every stream's event loop, {@link #published} on the table
 * writer's thread.
 */
interface ServiceEncodings {

  /** {@code service}'s {@code ServiceEndpoints} message, encoded; the array must not be changed. */
  byte[] encoded(ServiceEndpoints service);

  /** A new table version, published before the streams look at it. */
  void published(RoutingTable table);

  /** Services encoded so far (a seam for tests and the benchmark). */
  long encodes();
}
