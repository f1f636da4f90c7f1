package dev.routesync.gate;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the gate waits, and what it accepts.
 *
 * @param timeout the whole run's bound: without a verdict by then, it fails
 * @param settle how long the pass condition must hold without a break
 * @param allowEmpty a Service with no expected pods passes
 */
public record GateSettings(Duration timeout, Duration settle, boolean allowEmpty) {

  public GateSettings {
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(settle, "settle");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("--timeout must be more than 0");
    }
    if (settle.isNegative()) {
      throw new IllegalArgumentException("--settle must not be negative");
    }
  }
}
