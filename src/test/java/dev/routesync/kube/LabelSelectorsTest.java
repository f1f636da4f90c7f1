package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Selectors where the check and the API server disagreed, found by {@link LabelSelectorsFuzzTest}'s
 * differential with {@link KubernetesSelectorParser}. Each was accepted at start and then refused
 * by the API server on every list (a 400 loop, the very thing the check exists to prevent).
 */
class LabelSelectorsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a!=\b,b=", // the fuzzer's first: Java's trim() strips every control character
        "\u000Ba=b", // so did the whole selector's
        "a\f=b", // \s is wider than the API server's whitespace (' ', \t, \r, \n)
        "a in (b,\u000Bc)",
        "a>-1", // a Gt/Lt value must be a label value too: no sign
        "a<99999999999999999999", // and a 64-bit integer
        "a..b/c=d", // a key's prefix is a DNS-1123 subdomain: no empty part
        "a.-b/c", // nor one that starts or ends with '-'
        "a-.b/c",
        // CI's fixed-seed fuzzing: empty values come only from particular runs of commas.
        "c notin (c,,,,,,,,   )",
        "a in (b,,)",
        "a in (b c)"
      })
  void selectorsTheApiServerRefusesAreRefused(String selector) {
    assertThat(KubernetesSelectorParser.accepts(selector)).as("the API server refuses").isFalse();
    assertThatThrownBy(() -> LabelSelectors.validate(selector))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--label-selector: ");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a>007",
        "a<9223372036854775807",
        "a.b-c.d/e=f",
        "\ta=b\r\n",
        "x in (foo,,baz),y,z notin ()",
        "in in (in,notin)",
        "a in (b,)",
        "a in (,)",
        "a in (,b)",
        "a in (b,,,)"
      })
  void selectorsTheApiServerTakesAreAccepted(String selector) {
    assertThat(KubernetesSelectorParser.accepts(selector)).as("the API server takes").isTrue();
    assertThatCode(() -> LabelSelectors.validate(selector)).doesNotThrowAnyException();
  }
}
