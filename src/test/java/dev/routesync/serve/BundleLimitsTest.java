package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BundleLimitsTest {

  private final BundleLimits limits = new BundleLimits(1000, 2500);

  @Test
  void anEntryWithinTheLimitsIsKeptWhole() {
    byte[] content = "a".repeat(1000).getBytes(StandardCharsets.UTF_8);
    assertThat(limits.fit(content, 2500)).isSameAs(content);
  }

  @Test
  void anEntryOverItsLimitIsCutAndSaysSoWithinTheLimit() {
    String fitted = text(limits.fit("a".repeat(5000).getBytes(StandardCharsets.UTF_8), 2500));
    assertThat(fitted.length()).isLessThanOrEqualTo(1000);
    assertThat(fitted)
        .startsWith("aaa")
        .endsWith("]\n")
        .contains("[cut: this entry was 5000 bytes");
  }

  @Test
  void anEntryOverWhatRemainsOfTheTotalIsCutToIt() {
    byte[] fitted = limits.fit("a".repeat(900).getBytes(StandardCharsets.UTF_8), 300);
    assertThat(fitted.length).isLessThanOrEqualTo(300);
    assertThat(text(fitted)).contains("[cut: this entry was 900 bytes");
  }

  @Test
  void aCutNeverSplitsACharacter() {
    byte[] fitted = limits.fit("é".repeat(2000).getBytes(StandardCharsets.UTF_8), 2500);
    String text = text(fitted);
    assertThat(text).doesNotContain("\uFFFD");
    assertThat(text.substring(0, text.indexOf('\n'))).matches("é+");
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
