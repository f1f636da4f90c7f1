package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The watch's scope holds however the settings are built; the flags' ranges hold in of(...). */
class WatchSettingsTest {

  private static WatchSettings fast(List<String> namespaces, String selector) {
    return new WatchSettings(
        namespaces,
        selector,
        Duration.ofMillis(300),
        Duration.ofMillis(200),
        Duration.ofMillis(50),
        Duration.ofMillis(400),
        Duration.ofMillis(25));
  }

  @Test
  void theCanonicalConstructorRunsTheSubSecondTimingsTestsUse() {
    WatchSettings settings = fast(List.of(), "app");

    assertThat(settings.recovery().relistAfter()).isEqualTo(Duration.ofMillis(300));
    assertThat(settings.recovery().resync()).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void aNamespaceGivenTwiceIsWatchedOnce() {
    assertThat(fast(List.of("shop", "pay", "shop"), "app").namespaces())
        .containsExactly("shop", "pay");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          Shop         | app   | NAMESPACE_RULE
          shop_pay     | app   | NAMESPACE_RULE
          shop         | ''    | --label-selector must not be empty: routesync only syncs opted-in Services
          shop         | '  '  | --label-selector must not be empty: routesync only syncs opted-in Services
          shop         | a=b=c | --label-selector: 'a=b=c' is not a valid label selector requirement
          """)
  void theScopeIsCheckedInCodeToo(String namespace, String selector, String message) {
    // A bad namespace gets the one name rule's message, naming the flag.
    String expected =
        message.equals("NAMESPACE_RULE")
            ? "--namespace: " + dev.routesync.testing.NameRule.namespace(namespace)
            : message;
    assertThatThrownBy(() -> fast(List.of(namespace), selector))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(expected);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          999   | 600000      | --relist-after must be between 1s and 1h, got 999ms
          3600001 | 600000    | --relist-after must be between 1s and 1h, got 3600001ms
          10000 | 1           | --resync must be 0 (off) or between 1m and 24h, got 1ms
          10000 | 86400001    | --resync must be 0 (off) or between 1m and 24h, got 86400001ms
          """)
  void anOperatorsTimingsAreWithinTheFlagsRanges(long relistMillis, long resyncMillis, String m) {
    assertThatThrownBy(
            () ->
                WatchSettings.of(
                    List.of(),
                    "app",
                    Duration.ofMillis(relistMillis),
                    Duration.ofMillis(resyncMillis)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(m);
  }

  @Test
  void anOperatorMayTurnResyncOff() {
    WatchSettings settings =
        WatchSettings.of(List.of(), "app", WatchSettings.MIN_RELIST_AFTER, Duration.ZERO);

    assertThat(settings.resync()).isZero();
    assertThat(settings.backoffMin()).isEqualTo(WatchSettings.DEFAULT_BACKOFF_MIN);
  }

  @Test
  void theTwoArgumentFactoryHasTheProductionDefaults() {
    WatchSettings settings = WatchSettings.of(List.of(), WatchSettings.DEFAULT_LABEL_SELECTOR);

    assertThat(settings.relistAfter()).isEqualTo(Duration.ofSeconds(10));
    assertThat(settings.resync()).isEqualTo(Duration.ofMinutes(10));
    assertThat(settings.labelSelector()).isEqualTo("mesh-managed=true");
  }
}
