package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import org.junit.jupiter.api.Test;

/** What fabric8's own kubeconfig loader reads back from the helper's files. */
class KubeconfigsTest {

  @Test
  void fabric8ReadsTheServerTokenAndNamespaceBack() {
    Config config =
        Config.fromKubeconfig(
            Kubeconfigs.withToken("test", "http://127.0.0.1:8443", "t0k", "shop"));

    assertThat(config.getMasterUrl()).startsWith("http://127.0.0.1:8443");
    assertThat(config.getAutoOAuthToken()).isEqualTo("t0k");
    assertThat(config.getNamespace()).isEqualTo("shop");
    assertThat(config.getCurrentContext().getName()).isEqualTo("test");
  }

  @Test
  void withoutANamespaceTheContextHasNone() {
    String yaml = Kubeconfigs.withToken("soak", "http://127.0.0.1:1", "soak");

    assertThat(yaml).contains("kind: \"Config\"").contains("apiVersion: \"v1\"");
    assertThat(yaml).doesNotContain("namespace");
  }
}
