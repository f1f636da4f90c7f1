package dev.routesync.observe;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap's budget for live data: a share of the old generation, checked by the JVM itself right
 * after each collection of that generation, when what is left in it is what is live (a
 * collection-usage threshold and its JMX notification; nothing polls).
 *
 * <p>An old generation that stays above the budget after a full collection is the run-up to an
 * {@code OutOfMemoryError}: the collections come back to back and free nothing (the log then reads
 * {@code Pause Full 92M->92M}), and with {@code -XX:+ExitOnOutOfMemoryError} the next large
 * allocation ends the process. In a DaemonSet the restart lists the same cluster into the same
 * heap, on every node at once. The budget is the moment to stop growing instead ({@code
 * HeapGuard}).
 *
 * <p>The threshold is a JVM-wide setting of the pool: one budget per process.
 */
public final class HeapBudget {

  /**
   * The share of the old generation that may stay live after a collection. A relist builds its
   * generation beside the served one, so the heap is sized at twice the live data
   * (docs/install.md); above 90% live, one more list page is what fails.
   */
  public static final double DEFAULT_SHARE = 0.90;

  /** The budget spent: what the last collection of {@code pool} left, against the budget. */
  public record Spent(String pool, long liveBytes, long budgetBytes, long maxBytes) {

    /** For logs, Events and probes: the figures, in MiB. */
    public String describe() {
      return String.format(
          Locale.ROOT,
          "%.0f MiB of the heap's old generation (%s, %.0f MiB) still live after a full"
              + " collection, over its %.0f MiB budget",
          mib(liveBytes),
          pool,
          mib(maxBytes),
          mib(budgetBytes));
    }

    private static double mib(long bytes) {
      return bytes / 1_048_576.0;
    }
  }

  private final MemoryPoolMXBean pool;
  private final long maxBytes;
  private final long budgetBytes;
  private NotificationListener listener;

  private HeapBudget(MemoryPoolMXBean pool, long maxBytes, long budgetBytes) {
    this.pool = pool;
    this.maxBytes = maxBytes;
    this.budgetBytes = budgetBytes;
  }

  /**
   * The budget at {@code share} of this JVM's old generation; empty when no heap pool takes a
   * collection-usage threshold (a collector without generations that reports none, such as
   * Epsilon).
   */
  public static Optional<HeapBudget> of(double share) {
    if (!(share > 0 && share <= 1)) {
      throw new IllegalArgumentException("share must be in (0, 1], got " + share);
    }
    for (MemoryPoolMXBean candidate : ManagementFactory.getMemoryPoolMXBeans()) {
      if (candidate.getType() == MemoryType.HEAP
          && candidate.isCollectionUsageThresholdSupported()
          && isOldGeneration(candidate.getName())) {
        long max = candidate.getUsage().getMax();
        if (max <= 0) {
          max = Runtime.getRuntime().maxMemory(); // G1's old generation may report none
        }
        return Optional.of(new HeapBudget(candidate, max, Math.max(1, (long) (max * share))));
      }
    }
    return Optional.empty();
  }

  // Serial: "Tenured Gen"; Parallel: "PS Old Gen"; G1: "G1 Old Gen"; ZGC: "ZGC Old Generation".
  private static boolean isOldGeneration(String name) {
    return name.contains("Old") || name.contains("Tenured");
  }

  /**
   * Sets the threshold and calls {@code onSpent} after every collection that leaves the old
   * generation above the budget, on the JVM's notification thread: hand the work over, never block
   * it. Once per budget.
   */
  public synchronized void arm(Consumer<Spent> onSpent) {
    if (listener != null) {
      throw new IllegalStateException("already armed");
    }
    listener = (notification, handback) -> notified(notification, onSpent);
    emitter().addNotificationListener(listener, null, null);
    pool.setCollectionUsageThreshold(budgetBytes);
  }

  private void notified(Notification notification, Consumer<Spent> onSpent) {
    if (!MemoryNotificationInfo.MEMORY_COLLECTION_THRESHOLD_EXCEEDED.equals(
        notification.getType())) {
      return;
    }
    MemoryNotificationInfo info =
        MemoryNotificationInfo.from((CompositeData) notification.getUserData());
    // The threshold is the pool's, JVM-wide: a lower one set since (another budget) notifies too.
    if (!info.getPoolName().equals(pool.getName()) || info.getUsage().getUsed() < budgetBytes) {
      return;
    }
    onSpent.accept(new Spent(pool.getName(), info.getUsage().getUsed(), budgetBytes, maxBytes));
  }

  /** Stops notifying; the pool's threshold stays (it costs nothing without a listener). */
  public synchronized void disarm() {
    if (listener == null) {
      return;
    }
    try {
      emitter().removeNotificationListener(listener);
    } catch (ListenerNotFoundException e) {
      // already gone: nothing to remove
    }
    listener = null;
  }

  /** What the last collection of the old generation left in it; 0 before the first. */
  public long liveBytes() {
    var usage = pool.getCollectionUsage();
    return usage == null ? 0 : usage.getUsed();
  }

  /** The budget, in bytes of the old generation. */
  public long budgetBytes() {
    return budgetBytes;
  }

  /** Whether the last collection of the old generation left it above the budget. */
  public boolean spent() {
    return liveBytes() >= budgetBytes;
  }

  private static NotificationEmitter emitter() {
    return (NotificationEmitter) ManagementFactory.getMemoryMXBean();
  }
}
