package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.table.ServiceKey;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class XdsNamesTest {

  @ParameterizedTest
  @CsvSource({
    "cart.shop,                              ''",
    "cart.shop:8080,                         8080",
    "cart.shop:grpc,                         grpc",
    "cart.shop.svc,                          ''",
    "cart.shop.svc:8080,                     8080",
    "cart.shop.svc.cluster.local,            ''",
    "cart.shop.svc.cluster.local:8080,       8080",
    "cart.shop.svc.corp.example:65535,       65535",
  })
  void everySpellingGRpcClientsSendNamesTheService(String name, String port) {
    Optional<XdsTarget> target = XdsNames.parse(name);
    assertThat(target).contains(new XdsTarget(new ServiceKey("shop", "cart"), port));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "cart",
        ".shop",
        "cart.",
        "cart.shop:",
        "cart.shop:0",
        "cart.shop:65536",
        "cart.shop:08080",
        "cart.shop:123456",
        "cart.shop:-grpc",
        "cart.shop:8080:1",
        "Cart.shop",
        "cart.shop.cluster.local",
        "cart.shop.svcx",
        "cart.shop.svc.",
        "cart.shop.svc..local",
        "cart_x.shop",
        "xdstp://authority/envoy.config.listener.v3.Listener/cart.shop",
        "*",
      })
  void anythingElseNamesNone(String name) {
    assertThat(XdsNames.parse(name)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "cart.shop.svc.clusterset.local",
        "cart.shop.svc.clusterset.local:8080",
        "cart.shop.svc.clusterset.local:grpc",
        "cart.shop.svc.clusterset.local.:8080",
        "cart.shop.svc.ClusterSet.Local:8080",
      })
  void aMultiClusterNameIsRefusedNeverReadAsTheLocalService(String name) {
    assertThat(XdsNames.isClusterset(name)).isTrue();
    assertThat(XdsNames.parse(name)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "cart.shop:8080",
        "cart.shop.svc.cluster.local:8080",
        "clusterset.shop:8080",
        "cart.clusterset:8080",
        "svc.clusterset.local",
        "",
      })
  void otherNamesAreNotMultiClusterNames(String name) {
    assertThat(XdsNames.isClusterset(name)).isFalse();
  }

  @org.junit.jupiter.api.Test
  void aNameLongerThanAnyValidOneIsNotRead() {
    String name = "a".repeat(63) + "." + "b".repeat(63) + ".svc." + "c".repeat(200);
    assertThat(name.length()).isGreaterThan(XdsNames.MAX_NAME_LENGTH);
    assertThat(XdsNames.parse(name)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
    "cart.shop:8080,                   cart.shop.svc.cluster.local:8080",
    "cart.shop.svc:grpc,               cart.shop.svc.cluster.local:grpc",
    "cart.shop,                        cart.shop.svc.cluster.local",
    "cart.shop.svc.corp.example:80,    cart.shop.svc.cluster.local:80",
  })
  void everySpellingSharesOneCanonicalClusterWhichReadsBack(String name, String cluster) {
    XdsTarget target = XdsNames.parse(name).orElseThrow();
    assertThat(target.clusterName()).isEqualTo(cluster);
    assertThat(XdsNames.parse(cluster)).contains(target);
  }
}
