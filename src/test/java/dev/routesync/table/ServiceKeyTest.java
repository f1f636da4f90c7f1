package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ServiceKeyTest {

  @ParameterizedTest
  @ValueSource(strings = {"shop/cart", "kube-system/kube-dns", "a/b", "ns/name.with.dots"})
  void parseIsTheInverseOfToString(String text) {
    ServiceKey key = ServiceKey.parse(text);

    assertThat(key.toString()).isEqualTo(text);
    assertThat(ServiceKey.parse(key.toString())).isEqualTo(key);
  }

  @Test
  void parseSplitsNamespaceFromName() {
    assertThat(ServiceKey.parse("shop/cart")).isEqualTo(new ServiceKey("shop", "cart"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "a/", "/b", "a/b/c", "/", "", "//"})
  void parseRejectsTextThatIsNotExactlyNamespaceSlashName(String text) {
    assertThatThrownBy(() -> ServiceKey.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + text + "'");
  }

  @Test
  void keysOrderByNamespaceThenName() {
    List<ServiceKey> keys =
        new ArrayList<>(
            List.of(
                new ServiceKey("shop2", "a"),
                new ServiceKey("shop", "b"),
                new ServiceKey("sho", "z"),
                new ServiceKey("shop", "a"),
                new ServiceKey("shop-x", "a"),
                new ServiceKey("a", "zzz")));
    Collections.shuffle(keys, new java.util.Random(42));
    Collections.sort(keys);

    assertThat(keys)
        .containsExactly(
            new ServiceKey("a", "zzz"),
            new ServiceKey("sho", "z"),
            new ServiceKey("shop", "a"),
            new ServiceKey("shop", "b"),
            new ServiceKey("shop-x", "a"),
            new ServiceKey("shop2", "a"));
    // Not the order of the "namespace/name" strings, where "shop-x/a" sorts before "shop/b".
    assertThat("shop-x/a").isLessThan("shop/b");
    assertThat(new ServiceKey("a", "z")).isLessThan(new ServiceKey("b", "a"));
    assertThat(new ServiceKey("a", "b")).isEqualByComparingTo(new ServiceKey("a", "b"));
  }

  @Test
  void keysRejectNulls() {
    assertThatThrownBy(() -> new ServiceKey(null, "a")).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new ServiceKey("a", null)).isInstanceOf(NullPointerException.class);
  }
}
