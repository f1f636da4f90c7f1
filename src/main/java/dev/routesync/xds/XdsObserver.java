package dev.routesync.xds;

import java.time.Duration;

/**
 * What the xDS server tells the outside about its streams; implemented with Micrometer in {@code
 * observe/}. Labels are bounded: {@link XdsType} and {@link XdsClient}, never a name a client sent.
 *
 * <p>Threading: called on any event loop; implementations must be cheap, thread-safe and must not
 * throw.
 */
public interface XdsObserver {

  /** An ADS stream of {@code client} opened ({@code +1}) or ended ({@code -1}). */
  void streams(XdsClient client, boolean delta, int change);

  /**
   * A stream of {@code client} started ({@code +1}) or stopped ({@code -1}) following {@code type}.
   */
  void subscriptions(XdsType type, XdsClient client, int change);

  /** A response carrying {@code resources} resources (and, for delta, removals) was written. */
  void response(XdsType type, int resources);

  /** A client rejected a response (NACK). */
  void nack(XdsType type);

  /** A response caused by a table publish was written {@code latency} after the publish. */
  void pushed(XdsType type, Duration latency);

  /**
   * A client subscribed {@code count} names of {@code type} that are refused, never served: names
   * of the multi-cluster domain ({@link XdsNames#isClusterset}).
   */
  default void refused(XdsType type, int count) {}

  /** Counts nothing: for tests and benchmarks. */
  XdsObserver NONE =
      new XdsObserver() {
        @Override
        public void streams(XdsClient client, boolean delta, int change) {}

        @Override
        public void subscriptions(XdsType type, XdsClient client, int change) {}

        @Override
        public void response(XdsType type, int resources) {}

        @Override
        public void nack(XdsType type) {}

        @Override
        public void pushed(XdsType type, Duration latency) {}
      };
}
