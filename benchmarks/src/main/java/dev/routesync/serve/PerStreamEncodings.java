package dev.routesync.serve;

import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link FanOutBenchmark}'s baseline: every Watch stream encodes every Service it sends and nothing
 * is kept, so the benchmark can measure what the agent's shared {@link EncodedServices} saves.
 */
final class PerStreamEncodings implements ServiceEncodings {

  private final LongAdder encodes = new LongAdder();

  @Override
  public byte[] encoded(ServiceEndpoints service) {
    encodes.increment();
    return ProtoMapping.service(service).toByteArray();
  }

  @Override
  public void published(RoutingTable table) {}

  @Override
  public long encodes() {
    return encodes.sum();
  }
}
