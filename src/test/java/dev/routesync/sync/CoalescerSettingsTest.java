package dev.routesync.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The coalescer's ranges hold however the settings are built: from flags or in code. */
class CoalescerSettingsTest {

  static Stream<Arguments> outOfRange() {
    return Stream.of(
        Arguments.of(
            Duration.ofSeconds(11),
            Duration.ofSeconds(11),
            5,
            "--debounce must be between 0 and 10s, got 11s"),
        Arguments.of(
            Duration.ofMillis(-1),
            Duration.ZERO,
            5,
            "--debounce must be between 0 and 10s, got -1ms"),
        Arguments.of(
            Duration.ofHours(999_999_999),
            Duration.ofHours(999_999_999),
            5,
            "--debounce must be between 0 and 10s, got 999999999h"),
        Arguments.of(
            Duration.ZERO,
            Duration.ofMinutes(2),
            5,
            "--max-delay must be between 0 and 1m, got 2m"),
        Arguments.of(
            Duration.ofSeconds(1),
            Duration.ofMillis(500),
            5,
            "--max-delay (500ms) must be at least --debounce (1s)"),
        Arguments.of(
            Duration.ZERO, Duration.ZERO, 0, "--max-batch must be between 1 and 1000000, got 0"),
        Arguments.of(
            Duration.ZERO,
            Duration.ZERO,
            1_000_001,
            "--max-batch must be between 1 and 1000000, got 1000001"));
  }

  @ParameterizedTest(name = "{3}")
  @MethodSource("outOfRange")
  void aValueOutOfRangeIsRefusedNamingTheFlag(
      Duration debounce, Duration maxDelay, int maxBatch, String message) {
    assertThatThrownBy(() -> new CoalescerSettings(debounce, maxDelay, maxBatch))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void theBoundsThemselvesAreAccepted() {
    assertThat(new CoalescerSettings(Duration.ZERO, Duration.ZERO, 1).maxBatch()).isEqualTo(1);
    assertThat(
            new CoalescerSettings(
                    CoalescerSettings.MAX_DEBOUNCE,
                    CoalescerSettings.MAX_MAX_DELAY,
                    CoalescerSettings.MAX_MAX_BATCH)
                .maxDelay())
        .isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void theDefaultsAreWithinTheRanges() {
    assertThat(CoalescerSettings.defaults().debounce()).isEqualTo(Duration.ofMillis(50));
    assertThat(CoalescerSettings.defaults().maxDelay()).isEqualTo(Duration.ofMillis(500));
    assertThat(CoalescerSettings.defaults().maxBatch()).isEqualTo(5000);
  }
}
