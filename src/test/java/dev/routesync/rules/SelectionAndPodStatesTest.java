package dev.routesync.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectionAndPodStatesTest {

  static Service service(Map<String, String> selector, String type, Boolean publishNotReady) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("quote")
        .endMetadata()
        .withNewSpec()
        .withSelector(selector)
        .withType(type)
        .withPublishNotReadyAddresses(publishNotReady)
        .endSpec()
        .build();
  }

  static Pod pod(String phase, String ip, String ready, boolean deleting) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("quote-1")
        .withUid("u1")
        .withDeletionTimestamp(deleting ? "2026-12-01T10:00:00Z" : null)
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .withPodIP(ip)
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready)
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void onlyServicesWithASelectorThatAreNotExternalNameAreTheControllers() {
    assertThat(ServiceSelection.isControllerManaged(service(Map.of("app", "q"), null, null)))
        .isTrue();
    assertThat(ServiceSelection.isControllerManaged(service(Map.of(), null, null))).isFalse();
    assertThat(ServiceSelection.isControllerManaged(service(null, null, null))).isFalse();
    assertThat(
            ServiceSelection.isControllerManaged(service(Map.of("app", "q"), "ExternalName", null)))
        .isFalse();
    assertThat(ServiceSelection.isControllerManaged(null)).isFalse();
  }

  @Test
  void aSelectorSelectsWhenItIsASubsetOfTheLabelsInTheSameNamespace() {
    Service quote = service(Map.of("app", "quote", "tier", "api"), null, null);

    assertThat(
            ServiceSelection.selects(
                quote, "shop", Map.of("app", "quote", "tier", "api", "pod-template-hash", "x")))
        .isTrue();
    assertThat(ServiceSelection.selects(quote, "shop", Map.of("app", "quote"))).isFalse();
    assertThat(ServiceSelection.selects(quote, "other", Map.of("app", "quote", "tier", "api")))
        .isFalse();
    assertThat(ServiceSelection.selects(quote, "shop", null)).isFalse();
  }

  @Test
  void aPodIsExpectedWhenListedReadyAndNotTerminating() {
    Service plain = service(Map.of("app", "q"), null, null);
    Service publishing = service(Map.of("app", "q"), null, true);

    assertThat(PodStates.isExpected(pod("Running", "10.0.0.1", "True", false), plain)).isTrue();
    assertThat(PodStates.isExpected(pod("Running", "10.0.0.1", "False", false), plain)).isFalse();
    assertThat(PodStates.isExpected(pod("Running", "10.0.0.1", "False", false), publishing))
        .isTrue();
    assertThat(PodStates.isExpected(pod("Running", "10.0.0.1", "True", true), plain)).isFalse();
    assertThat(PodStates.isExpected(pod("Running", null, "True", false), plain)).isFalse();
    assertThat(PodStates.isExpected(pod("Succeeded", "10.0.0.1", "True", false), plain)).isFalse();
    assertThat(PodStates.isExpected(pod("Failed", "10.0.0.1", "True", false), plain)).isFalse();
  }

  @Test
  void terminatingPodsAreStillListedTerminalOnesAreNot() {
    assertThat(PodStates.isListed(pod("Running", "10.0.0.1", "True", true))).isTrue();
    assertThat(PodStates.isListed(pod("Failed", "10.0.0.1", "True", false))).isFalse();
    assertThat(PodStates.isListed(pod("Pending", "", "False", false))).isFalse();
  }
}
