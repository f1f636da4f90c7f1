package dev.routesync.units;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  static Stream<Arguments> parsed() {
    return Stream.of(
        Arguments.of("0", Duration.ZERO),
        Arguments.of("0ms", Duration.ZERO),
        Arguments.of("0s", Duration.ZERO),
        Arguments.of("250ms", Duration.ofMillis(250)),
        Arguments.of("1500ms", Duration.ofMillis(1500)),
        Arguments.of("10s", Duration.ofSeconds(10)),
        Arguments.of("5m", Duration.ofMinutes(5)),
        Arguments.of("1h", Duration.ofHours(1)),
        Arguments.of("007s", Duration.ofSeconds(7)),
        Arguments.of(" 10s ", Duration.ofSeconds(10)),
        Arguments.of("999999999ms", Duration.ofMillis(999_999_999)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("parsed")
  void parsesTheFlagSyntax(String text, Duration expected) {
    assertThat(Durations.parse(text)).isEqualTo(expected);
  }

  static Stream<Arguments> formatted() {
    return Stream.of(
        Arguments.of(Duration.ZERO, "0"),
        Arguments.of(Duration.ofMillis(1), "1ms"),
        Arguments.of(Duration.ofMillis(50), "50ms"),
        Arguments.of(Duration.ofMillis(1500), "1500ms"),
        Arguments.of(Duration.ofSeconds(1), "1s"),
        Arguments.of(Duration.ofSeconds(90), "90s"),
        Arguments.of(Duration.ofSeconds(60), "1m"),
        Arguments.of(Duration.ofMinutes(10), "10m"),
        Arguments.of(Duration.ofMinutes(90), "90m"),
        Arguments.of(Duration.ofMinutes(60), "1h"),
        Arguments.of(Duration.ofHours(36), "36h"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("formatted")
  void formatsWithTheLargestExactUnit(Duration duration, String expected) {
    assertThat(Durations.format(duration)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(
      longs = {0, 1, 50, 999, 1000, 1001, 59_999, 60_000, 61_000, 3_599_000, 3_600_000, 86_400_000})
  void parseIsTheInverseOfFormat(long millis) {
    Duration duration = Duration.ofMillis(millis);

    assertThat(Durations.parse(Durations.format(duration))).isEqualTo(duration);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "250ms", "10s", "5m", "1h", "90s", "1500ms"})
  void formatIsTheInverseOfParseForCanonicalText(String text) {
    assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "10",
        "1.5s",
        "-1s",
        "10 s",
        " ",
        "s",
        "ms",
        "10S",
        "10sec",
        "10d",
        "1h30m",
        "+5s",
        "0x10s",
        "1234567890ms",
        "PT10S"
      })
  void rejectsAnythingElse(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not a duration")
        .hasMessageContaining("'" + text + "'");
  }

  @org.junit.jupiter.api.Test
  void nanosecondsAreWrittenAsTheFlagsWriteDurations() {
    org.assertj.core.api.Assertions.assertThat(Durations.formatNanos(17_572_400_000L))
        .isEqualTo("17572ms");
    org.assertj.core.api.Assertions.assertThat(Durations.formatNanos(300_000_000_000L))
        .isEqualTo("5m");
  }
}
