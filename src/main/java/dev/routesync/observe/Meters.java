package dev.routesync.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;

/** Registration helpers shared by the stage adapters. */
final class Meters {

  private Meters() {}

  /**
   * One counter per constant of {@code type}, registered now, with the constant's label under
   * {@code tag} (after any fixed tags, as key-value pairs). Recording is then an array index, not a
   * registry lookup; and every series exists, at zero, from the start.
   */
  static <E extends Enum<E>> Map<E, Counter> perConstant(
      MeterRegistry registry,
      String name,
      String description,
      Class<E> type,
      String tag,
      Function<E, String> label,
      String... fixedTags) {
    EnumMap<E, Counter> counters = new EnumMap<>(type);
    for (E constant : type.getEnumConstants()) {
      counters.put(
          constant,
          Counter.builder(name)
              .description(description)
              .tags(fixedTags)
              .tag(tag, label.apply(constant))
              .register(registry));
    }
    return Collections.unmodifiableMap(counters);
  }

  static Duration millis(long millis) {
    return Duration.ofMillis(millis);
  }
}
