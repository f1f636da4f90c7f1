package dev.routesync.gate;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which Services of the namespace the gate checks: the ones named by {@code --service}, or the ones
 * the API server finds for the label selector {@code -l}. Exactly one of the two.
 *
 * @param namespace the namespace
 * @param names the {@code --service} names, in the order given, without repeats; empty with a
 *     selector
 * @param selector the {@code -l} selector, applied by the API server
 */
public record Targets(String namespace, List<String> names, Optional<String> selector) {

  public Targets {
    Objects.requireNonNull(namespace, "namespace");
    names = List.copyOf(names.stream().distinct().toList());
    Objects.requireNonNull(selector, "selector");
    if (names.isEmpty() == selector.isEmpty()) {
      throw new IllegalArgumentException("either Service names or a selector, not both or none");
    }
  }

  public static Targets named(String namespace, List<String> names) {
    return new Targets(namespace, names, Optional.empty());
  }

  public static Targets selected(String namespace, String selector) {
    return new Targets(namespace, List.of(), Optional.of(selector));
  }

  /** For messages: {@code --service quote,cart} or {@code -l app=quote}. */
  public String describe() {
    return selector.map(s -> "-l " + s).orElseGet(() -> "--service " + String.join(",", names));
  }
}
