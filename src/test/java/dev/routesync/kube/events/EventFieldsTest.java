package dev.routesync.kube.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventFieldsTest {

  private static final String DNS_SUBDOMAIN =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

  @Test
  void theNameIsThePodAndAStableHashOfTheKey() {
    String name = EventFields.name("quote-7d4b9-abcde", "shop/quote-7d4b9-abcde/quote/http/X");
    assertThat(name).matches("quote-7d4b9-abcde\\.[0-9a-f]{16}");
    assertThat(EventFields.name("quote-7d4b9-abcde", "shop/quote-7d4b9-abcde/quote/http/X"))
        .isEqualTo(name);
    assertThat(EventFields.name("quote-7d4b9-abcde", "shop/quote-7d4b9-abcde/quote/grpc/X"))
        .isNotEqualTo(name);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "a-pod-name-of-253-characters, 253",
    "a name with spaces and CAPS, 0",
    "-.leading..and.trailing.-, 0",
    "ends-with-dash-at-the-cut, 236",
    "..., 0",
  })
  void theNameIsAlwaysADnsSubdomainOfAtMost253Characters(String pod, int padTo) {
    String regarding = padTo > 0 ? pad(pod, padTo) : pod;
    String name = EventFields.name(regarding, "key");
    assertThat(name).matches(DNS_SUBDOMAIN);
    assertThat(name.length()).isLessThanOrEqualTo(253);
  }

  @Test
  void aPodNameOfMaximalLengthIsCutToLeaveRoomForTheHash() {
    String pod = "p".repeat(253);
    String name = EventFields.name(pod, "key");
    assertThat(name).hasSize(253).startsWith("p".repeat(236) + ".");
  }

  @Test
  void aCutThatEndsOnADashOrDotDropsIt() {
    // 235 characters, then a dash at position 236: the cut would leave "...p-.hash".
    String pod = "p".repeat(235) + "-" + "q".repeat(20);
    String name = EventFields.name(pod, "key");
    assertThat(name).startsWith("p".repeat(235) + ".").matches(DNS_SUBDOMAIN);
  }

  @Test
  void aShortNoteIsKept() {
    assertThat(EventFields.note("port http: NamedPortNotFound"))
        .isEqualTo("port http: NamedPortNotFound");
    String exactly = "x".repeat(1024);
    assertThat(EventFields.note(exactly)).isEqualTo(exactly);
  }

  @Test
  void aLongNoteIsCutToTheByteLimitNeverMidCharacter() {
    String ascii = EventFields.note("x".repeat(5000));
    assertThat(ascii.getBytes(StandardCharsets.UTF_8)).hasSize(1024);
    assertThat(ascii).endsWith("...");

    // 4-byte characters: the cut falls between them, not inside one.
    String emoji = EventFields.note("\uD83D\uDE80".repeat(400));
    byte[] bytes = emoji.getBytes(StandardCharsets.UTF_8);
    assertThat(bytes.length).isLessThanOrEqualTo(1024);
    assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo(emoji);
    assertThat(emoji).endsWith("...").startsWith("\uD83D\uDE80");
    assertThat(emoji.codePoints().filter(c -> c == 0x1F680).count()).isEqualTo((1024 - 3) / 4);
  }

  @Test
  void microTimeHasSixFractionDigitsInUtc() {
    assertThat(EventFields.microTime(Instant.parse("2026-12-01T12:00:00.123456789Z")))
        .isEqualTo("2026-12-01T12:00:00.123456Z");
    assertThat(EventFields.microTime(Instant.parse("2026-12-01T12:00:00Z")))
        .isEqualTo("2026-12-01T12:00:00.000000Z");
  }

  private static String pad(String prefix, int length) {
    StringBuilder s = new StringBuilder(prefix);
    while (s.length() < length) {
      s.append(s.length() % 7 == 0 ? '-' : 'a');
    }
    return s.substring(0, length);
  }
}
