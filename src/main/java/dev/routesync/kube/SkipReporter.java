package dev.routesync.kube;

import dev.routesync.kube.translate.Skip;
import dev.routesync.kube.translate.SkipReason;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts every skip and logs a warning per reason at most once per interval, saying how many were
 * suppressed, so a flood of malformed objects cannot flood the log. It is given each object
 * version's skips once ({@link CountedSkips}), so both the counter and the "similar skips not
 * logged" figure count malformed object versions, not recomputes of their Services.
 *
 * <p>Threading: called on the sync context only.
 */
public final class SkipReporter {

  private static final Logger LOG = LoggerFactory.getLogger(SkipReporter.class);

  private final SkipObserver observer;
  private final LongSupplier nanoTime;
  private final long intervalNanos;
  private final Map<SkipReason, Long> lastLogged = new EnumMap<>(SkipReason.class);
  private final Map<SkipReason, Integer> suppressed = new EnumMap<>(SkipReason.class);

  public SkipReporter(SkipObserver observer, LongSupplier nanoTime, long interval, TimeUnit unit) {
    this.observer = observer;
    this.nanoTime = nanoTime;
    this.intervalNanos = unit.toNanos(interval);
  }

  public void report(Skip skip) {
    observer.skipped(skip.reason());
    long now = nanoTime.getAsLong();
    Long last = lastLogged.get(skip.reason());
    if (last != null && now - last < intervalNanos) {
      suppressed.merge(skip.reason(), 1, Integer::sum);
      return;
    }
    lastLogged.put(skip.reason(), now);
    Integer quiet = suppressed.remove(skip.reason());
    // The key-value pairs are for JSON logs; the text line says the same in words.
    LOG.atWarn()
        .addKeyValue("object", skip.object())
        .addKeyValue("reason", skip.reason().label())
        .addKeyValue("resourceVersion", skip.resourceVersion())
        .log(
            "skipped malformed {} ({}): {}{}",
            skip.object(),
            skip.reason().label(),
            skip.detail(),
            quiet == null ? "" : " (" + quiet + " similar skips not logged)");
  }
}
