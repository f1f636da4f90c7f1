package dev.routesync.kube.events;

import java.util.EnumMap;
import java.util.Map;

/** Counts results, thread-safely. */
final class CountingObserver implements EventObserver {

  private final Map<EventResult, Integer> counts = new EnumMap<>(EventResult.class);

  @Override
  public synchronized void recorded(EventResult result) {
    counts.merge(result, 1, Integer::sum);
  }

  synchronized int count(EventResult result) {
    return counts.getOrDefault(result, 0);
  }

  synchronized int total() {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }
}
