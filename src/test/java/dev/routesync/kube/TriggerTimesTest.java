package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The trigger-time parser answers exactly what {@code Instant.parse} does, null for its errors. */
class TriggerTimesTest {

  private static Instant reference(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-12-02T05:24:41Z",
        "2026-12-02T05:24:41.1Z",
        "2026-12-02T05:24:41.123456789Z",
        "2026-12-02T05:24:41.000000Z",
        "1970-01-01T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999999Z",
        "2024-02-29T12:00:00Z",
        // Not the controllers' form: the fallback answers.
        "2026-12-02T05:24:41+01:00",
        "2026-12-02T05:24:41.5-07:30",
        "2016-12-31T23:59:60Z",
        "2026-12-02T24:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-12-02T05:60:00Z",
        "2026-12-02T05:24:41.Z",
        "2026-12-02T05:24:41.1234567890Z",
        "2026-12-02t05:24:41z",
        "2026-12-02 05:24:41Z",
        "2026-12-02T05:24:41",
        "+2026-12-02T05:24:41Z",
        "2026-1a-02T05:24:41Z",
        "２026-12-02T05:24:41Z",
        "",
        "not a time"
      })
  void answersAsInstantParseDoes(String text) {
    assertThat(TriggerTimes.parse(text)).isEqualTo(reference(text));
  }

  @Test
  void nullIsNoTime() {
    assertThat(TriggerTimes.parse(null)).isNull();
  }

  @Test
  void answersAsInstantParseDoesForManyTimesAndTheirOneCharacterMutations() {
    Random random = new Random(20261202);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      Instant instant =
          Instant.ofEpochSecond(
              random.nextLong(-62_167_219_200L, 253_402_300_800L), random.nextInt(1_000_000_000));
      String text = instant.toString(); // 0, 3, 6 or 9 fraction digits
      if (random.nextBoolean()) {
        int digits = random.nextInt(10);
        String whole = text.substring(0, 19);
        String nanos = String.format("%09d", instant.getNano());
        text = whole + (digits == 0 ? "" : "." + nanos.substring(0, digits)) + "Z";
      }
      texts.add(text);
      char[] mutated = text.toCharArray();
      mutated[random.nextInt(mutated.length)] = "0123456789:-.TZ+x ".charAt(random.nextInt(18));
      texts.add(new String(mutated));
    }
    for (String text : texts) {
      assertThat(TriggerTimes.parse(text)).as(text).isEqualTo(reference(text));
    }
  }
}
