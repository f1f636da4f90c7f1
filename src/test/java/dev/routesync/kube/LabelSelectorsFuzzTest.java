package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * The {@code --label-selector} (and {@code gate -l}) check: any text is accepted or refused with an
 * {@link IllegalArgumentException} naming the flag, nothing else; and it agrees with the API
 * server's own parser ({@link KubernetesSelectorParser}): a selector the agent accepts but the API
 * server refuses would be a 400 on every list, for ever, and one the agent refuses but the API
 * server takes is a working configuration turned away. A normal build replays {@code
 * LabelSelectorsFuzzTestInputs/}; {@code scripts/fuzz.sh} fuzzes.
 */
class LabelSelectorsFuzzTest {

  @FuzzTest
  @DictionaryEntries({
    "mesh-managed=true",
    " in (",
    " notin (",
    "!=",
    "==",
    ">",
    "<",
    "example.com/",
    "!",
    ",",
    ")",
    "\t",
    "\f",
  })
  void labelSelector(byte[] bytes) {
    String selector = new String(bytes, StandardCharsets.UTF_8);
    if (selector.isBlank()) {
      return; // WatchSettings and gate refuse a blank selector before they check it
    }
    boolean accepted;
    try {
      LabelSelectors.validate(selector);
      accepted = true;
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).startsWith("--label-selector: ");
      accepted = false;
    }
    // The API server's lexer stops at a NUL; the agent refuses it, which is only stricter.
    if (selector.indexOf('\0') < 0) {
      assertThat(accepted)
          .as("agent accepts %s as the API server does", quoted(selector))
          .isEqualTo(KubernetesSelectorParser.accepts(selector));
    } else {
      assertThat(accepted).as("agent refuses a NUL").isFalse();
    }
  }

  private static String quoted(String text) {
    StringBuilder out = new StringBuilder("\"");
    text.chars()
        .forEach(
            c -> {
              if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", c));
              } else {
                out.append((char) c);
              }
            });
    return out.append('"').toString();
  }
}
