package dev.routesync.xds;

import dev.routesync.sidecars.ClientText;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns that clients ask for multi-cluster names ({@code <svc>.<ns>.svc.clusterset.local}), which
 * the agent never serves: at most once per {@link NackLog#INTERVAL_NANOS} for the whole agent, with
 * the number not logged since, so that many clients asking on many streams cannot flood the log.
 * The names themselves are the client's and are not logged; the node id is cut short.
 */
final class RefusedNameLog {

  private static final Logger LOG = LoggerFactory.getLogger(RefusedNameLog.class);
  private static final AtomicLong NEXT_ALLOWED = new AtomicLong(System.nanoTime());
  private static final AtomicLong SUPPRESSED = new AtomicLong();

  private RefusedNameLog() {}

  static void refused(XdsType type, XdsClient client, String node, int count) {
    long now = System.nanoTime();
    long allowed = NEXT_ALLOWED.get();
    if (now - allowed < 0 || !NEXT_ALLOWED.compareAndSet(allowed, now + NackLog.INTERVAL_NANOS)) {
      SUPPRESSED.addAndGet(count);
      return;
    }
    long others = SUPPRESSED.getAndSet(0);
    LOG.warn(
        "xDS client {} (node {}) asked for {} {} name(s) in the multi-cluster domain ({}): not"
            + " served, this agent serves this cluster's Services only (MCS ServiceImports are"
            + " not imported){}",
        client.label(),
        ClientText.bounded(node, 100),
        count,
        type.label().toUpperCase(java.util.Locale.ROOT),
        XdsNames.CLUSTERSET_DOMAIN,
        others == 0 ? "" : " (" + others + " more not logged)");
  }
}
