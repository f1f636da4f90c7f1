package dev.routesync.xds;

import dev.routesync.sidecars.ClientText;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns about rejected responses (NACKs), at most once per {@link #INTERVAL_NANOS}: a client that
 * rejects every response, on many streams, must not flood the log. The detail is the client's text,
 * so it is cut short and stripped of control, bidirectional and line-breaking characters.
 */
final class NackLog {

  private static final Logger LOG = LoggerFactory.getLogger(NackLog.class);
  static final long INTERVAL_NANOS = 10_000_000_000L;
  private static final int MAX_DETAIL = 200;

  private final LongSupplier nanos;
  private final AtomicLong nextAllowed;
  private final AtomicLong suppressed = new AtomicLong();

  NackLog(LongSupplier nanos) {
    this.nanos = nanos;
    this.nextAllowed = new AtomicLong(nanos.getAsLong());
  }

  /** Whether this NACK was logged (else counted as suppressed, for the next line). */
  boolean nacked(XdsType type, XdsClient client, String node, String detail) {
    long now = nanos.getAsLong();
    long allowed = nextAllowed.get();
    if (now - allowed < 0 || !nextAllowed.compareAndSet(allowed, now + INTERVAL_NANOS)) {
      suppressed.incrementAndGet();
      return false;
    }
    long others = suppressed.getAndSet(0);
    LOG.warn(
        "xDS client {} (node {}) rejected a {} response: {}{}",
        client.label(),
        ClientText.bounded(node, 100),
        type.label().toUpperCase(java.util.Locale.ROOT),
        ClientText.bounded(detail, MAX_DETAIL),
        others == 0 ? "" : " (" + others + " more rejections not logged)");
    return true;
  }
}
