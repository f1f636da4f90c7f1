package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.testing.NameRule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ServiceKeyTest {

  /**
   * Kubernetes' rule for both parts, a DNS-1123 label: {@code ValidateNamespaceName} and, since
   * KEP-5311 ({@code RelaxedServiceNameValidation}, beta and on by default in 1.36), Service names
   * too, which may therefore start with a digit.
   */
  static Stream<String> validNames() {
    return Stream.of(
        "shop", "a", "0", "9lives", "1cart", "kube-system", "a-b-c", "x--y", "a".repeat(63));
  }

  static Stream<String> invalidNames() {
    return Stream.of(
        "",
        "Shop",
        "shoP",
        "shop_payments",
        "-shop",
        "shop-",
        "-",
        "shop.x",
        "shop/x",
        "shop x",
        " shop",
        "café",
        "a".repeat(64));
  }

  @ParameterizedTest
  @MethodSource("validNames")
  void aDns1123LabelIsAValidNamespaceAndServiceName(String name) {
    assertThat(KubernetesNames.isDns1123Label(name)).isTrue();
    assertThat(KubernetesNames.requireNamespace(name)).isEqualTo(name);
    assertThat(KubernetesNames.requireServiceName(name)).isEqualTo(name);
    assertThat(ServiceKey.of(name, name)).isEqualTo(new ServiceKey(name, name));
  }

  @ParameterizedTest
  @MethodSource("invalidNames")
  void anythingElseIsRejectedWithOneMessageFormat(String name) {
    assertThat(KubernetesNames.isDns1123Label(name)).isFalse();
    assertThatThrownBy(() -> KubernetesNames.requireNamespace(name))
        .isInstanceOf(InvalidNameException.class)
        .hasMessage(NameRule.namespace(name));
    assertThatThrownBy(() -> KubernetesNames.requireServiceName(name))
        .isInstanceOf(InvalidNameException.class)
        .hasMessage(NameRule.serviceName(name));
    assertThatThrownBy(() -> ServiceKey.of(name, "cart")).hasMessage(NameRule.namespace(name));
    assertThatThrownBy(() -> ServiceKey.of("shop", name)).hasMessage(NameRule.serviceName(name));
  }

  @Test
  void anInvalidNameIsAnIllegalArgument() {
    assertThatThrownBy(() -> ServiceKey.of("Shop", "cart"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aMultiClusterNameIsRefusedSayingMcsImportsAreNotServed() {
    assertThatThrownBy(() -> ServiceKey.of("shop", "cart.shop.svc.clusterset.local"))
        .isInstanceOf(InvalidNameException.class)
        .hasMessageContaining("Service name \"cart.shop.svc.clusterset.local\"")
        .hasMessageContaining("multi-cluster")
        .hasMessageContaining("MCS ServiceImports are not served");
    assertThatThrownBy(() -> ServiceKey.parse("shop/cart.shop.svc.ClusterSet.local:80"))
        .hasMessageContaining("MCS ServiceImports are not served");
    // Any other invalid name keeps the usual rule.
    assertThatThrownBy(() -> ServiceKey.of("shop", "cart.shop.svc.cluster.local"))
        .hasMessageNotContaining("multi-cluster");
  }

  @Test
  void theNamespaceIsCheckedFirst() {
    assertThatThrownBy(() -> ServiceKey.of("Shop", "Cart")).hasMessage(NameRule.namespace("Shop"));
  }

  static Stream<Arguments> quotedValues() {
    return Stream.of(
        Arguments.of("shop\nx", "\"shop\\nx\""),
        Arguments.of("a\"b", "\"a\\\"b\""),
        Arguments.of("a\\b", "\"a\\\\b\""),
        Arguments.of("tab\there", "\"tab\\there\""),
        Arguments.of("bell\u0007", "\"bell\\u0007\""),
        Arguments.of("rtl\u202Eoverride", "\"rtl\\u202eoverride\""),
        Arguments.of("line\u2028sep", "\"line\\u2028sep\""),
        Arguments.of("café", "\"café\""),
        Arguments.of("x".repeat(64), "\"" + "x".repeat(64) + "\""),
        Arguments.of("x".repeat(65), "\"" + "x".repeat(64) + "...\" (65 characters)"),
        Arguments.of("y".repeat(1_000_000), "\"" + "y".repeat(64) + "...\" (1000000 characters)"),
        // A surrogate pair is not cut in half, and counts as one character.
        Arguments.of("z".repeat(63) + "😀" + "z", "\"" + "z".repeat(63) + "...\" (65 characters)"));
  }

  @ParameterizedTest
  @MethodSource("quotedValues")
  void theValueIsQuotedOnOneLineAndBoundedInLength(String value, String quoted) {
    assertThatThrownBy(() -> KubernetesNames.requireNamespace(value))
        .hasMessage("namespace " + quoted + ": " + NameRule.RULE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"shop/cart", "kube-system/kube-dns", "a/b", "0/1cart"})
  void parseIsTheInverseOfToString(String text) {
    ServiceKey key = ServiceKey.parse(text);

    assertThat(key.toString()).isEqualTo(text);
    assertThat(ServiceKey.parse(key.toString())).isEqualTo(key);
  }

  @Test
  void parseSplitsNamespaceFromName() {
    assertThat(ServiceKey.parse("shop/cart")).isEqualTo(new ServiceKey("shop", "cart"));
  }

  static Stream<Arguments> unparsable() {
    String shape = ": must be namespace/name, two names joined by one '/'";
    return Stream.of(
        Arguments.of("a", "Service \"a\"" + shape),
        Arguments.of("a/b/c", "Service \"a/b/c\"" + shape),
        Arguments.of("//", "Service \"//\"" + shape),
        Arguments.of("", "Service \"\"" + shape),
        Arguments.of("a/", NameRule.serviceName("")),
        Arguments.of("/b", NameRule.namespace("")),
        Arguments.of("/", NameRule.namespace("")),
        Arguments.of("Shop/cart", NameRule.namespace("Shop")),
        Arguments.of("shop/name.with.dots", NameRule.serviceName("name.with.dots")));
  }

  @ParameterizedTest
  @MethodSource("unparsable")
  void parseRejectsAnythingButTwoValidNamesJoinedByOneSlash(String text, String message) {
    assertThatThrownBy(() -> ServiceKey.parse(text))
        .isInstanceOf(InvalidNameException.class)
        .hasMessage(message);
  }

  @Test
  void theRecordConstructorIsTheTrustedPathAndChecksOnlyForNulls() {
    // Keys from objects the API server validated are built without re-checking each name.
    assertThat(new ServiceKey("Any", "thing_at_all").toString()).isEqualTo("Any/thing_at_all");
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
  void equalityIsByNamespaceAndNameWithTheRecordsHash() {
    ServiceKey key = new ServiceKey("shop", "cart");
    ServiceKey copy = new ServiceKey(new String("shop"), new String("cart"));
    assertThat(key).isEqualTo(key).isEqualTo(copy).hasSameHashCodeAs(copy);
    assertThat(copy).isEqualTo(key);
    // The formula a record generates (31 * first component's hash + second's), kept so that any
    // hash-ordered structure iterates as it did before equals and hashCode were written out.
    assertThat(key.hashCode()).isEqualTo(31 * "shop".hashCode() + "cart".hashCode());
    assertThat(key)
        .isNotEqualTo(new ServiceKey("shop", "carts"))
        .isNotEqualTo(new ServiceKey("shops", "cart"))
        .isNotEqualTo(new ServiceKey("cart", "shop"))
        .isNotEqualTo("shop/cart")
        .isNotEqualTo(null);
  }

  @Test
  void keysRejectNulls() {
    assertThatThrownBy(() -> new ServiceKey(null, "a")).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new ServiceKey("a", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ServiceKey.of(null, "a")).isInstanceOf(NullPointerException.class);
  }
}
