package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubeconfigFactsTest {

  @Test
  void namesTheKindsOfCredentialAndNeverTheirValues() {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("https://10.0.0.1:6443")
            .withNamespace("routesync")
            .withOauthToken("the-token-value")
            .withClientCertData("Y2VydGlmaWNhdGU=")
            .withClientKeyData("a2V5LXZhbHVl")
            .build();

    Map<String, String> facts = KubeconfigFacts.of(config);

    assertThat(facts)
        .containsEntry("server", "https://10.0.0.1:6443/")
        .containsEntry("namespace", "routesync")
        .containsEntry("auth", "token, client certificate");
    assertThat(facts.toString())
        .doesNotContain("the-token-value", "Y2VydGlmaWNhdGU=", "a2V5LXZhbHVl");
  }

  @Test
  void sayNoneWhenNoCredentialIsConfigured() {
    Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://10.0.0.1").build();
    assertThat(KubeconfigFacts.of(config)).containsEntry("auth", "none");
  }
}
