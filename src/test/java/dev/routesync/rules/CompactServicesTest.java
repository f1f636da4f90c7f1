package dev.routesync.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.ApiServerServices;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The compact form of a Service: the rules' answers unchanged, the rest gone. */
class CompactServicesTest {

  private final Service decoded = ApiServerServices.decoded(11);
  private final Service compact = CompactServices.compact(decoded);

  @Test
  void theRulesAnswerTheSameForTheCompactForm() {
    Map<String, String> podLabels =
        Map.of(
            "app.kubernetes.io/name", "checkout", "app.kubernetes.io/instance", "checkout-00011");

    assertThat(ServiceSelection.isControllerManaged(compact)).isTrue();
    assertThat(ServiceSelection.selects(compact, "shop-011", podLabels)).isTrue();
    assertThat(ServiceSelection.selects(compact, "shop-012", podLabels)).isFalse();
    assertThat(ServiceSelection.publishesNotReady(compact))
        .isEqualTo(ServiceSelection.publishesNotReady(decoded));
    assertThat(ServiceSelection.portsOf(compact)).isEqualTo(ServiceSelection.portsOf(decoded));
    assertThat(ServiceSelection.portsOf(compact).stream().map(EndpointCheck::describe))
        .containsExactly("port http (80 -> http/TCP)", "port grpc (9090 -> 9090/TCP)");
  }

  @Test
  void onlyTheIdentityAndWhatTheRulesReadAreKept() {
    assertThat(compact.getMetadata().getManagedFields()).isEmpty();
    assertThat(compact.getMetadata().getAnnotations()).isEmpty();
    assertThat(compact.getMetadata().getLabels()).isEmpty();
    assertThat(compact.getMetadata().getCreationTimestamp()).isNull();
    assertThat(compact.getStatus()).isNull();
    assertThat(compact.getSpec().getClusterIP()).isNull();
    // The first IP family is a dual-stack pod's primary address: kept, as one shared list.
    assertThat(compact.getSpec().getIpFamilies()).containsExactly("IPv4");
    assertThat(compact.getSpec().getIpFamilies())
        .isSameAs(CompactServices.compact(ApiServerServices.decoded(12)).getSpec().getIpFamilies());
    assertThat(compact.getMetadata().getUid()).isEqualTo(decoded.getMetadata().getUid());
    assertThat(compact.getMetadata().getResourceVersion())
        .isEqualTo(decoded.getMetadata().getResourceVersion());
  }

  @Test
  void headlessAndAnExternalNameUpToADnsNamesLengthAreKept() {
    Service headless = CompactServices.compact(decoded);
    decoded.getSpec().setClusterIP("None");
    assertThat(CompactServices.compact(decoded).getSpec().getClusterIP()).isEqualTo("None");
    assertThat(headless.getSpec().getClusterIP()).isNull();

    decoded.getSpec().setType("ExternalName");
    decoded.getSpec().setExternalName("d".repeat(253));
    assertThat(CompactServices.compact(decoded).getSpec().getExternalName())
        .isEqualTo("d".repeat(253));
    decoded.getSpec().setExternalName("d".repeat(254));
    assertThat(CompactServices.compact(decoded).getSpec().getExternalName()).isNull();
    assertThat(CompactServices.compact(decoded).getSpec().getType()).isEqualTo("ExternalName");
  }

  @Test
  void aCompactServiceIsItsOwnCompactForm() {
    assertThat(CompactServices.compact(compact)).isSameAs(compact);
    assertThat(CompactServices.compact(decoded)).isNotSameAs(decoded).isEqualTo(compact);
  }

  @Test
  void smallRepeatedStringsAreShared() {
    Service other =
        CompactServices.compact(ApiServerServices.decoded(11 + ApiServerServices.NAMESPACES));

    assertThat(other.getMetadata().getNamespace()).isSameAs(compact.getMetadata().getNamespace());
    assertThat(other.getSpec().getPorts().get(0).getName())
        .isSameAs(compact.getSpec().getPorts().get(0).getName());
    assertThat(other.getSpec().getPorts().get(0).getTargetPort().getStrVal())
        .isSameAs(compact.getSpec().getPorts().get(0).getTargetPort().getStrVal());
  }

  @Test
  void theNameIsOneInstanceHoweverManyTimesItWasDecoded() {
    // A relist decodes every Service again: its name is then a new, equal string. The compact form
    // holds the one instance the slices' keys of the same Service hold (the watch's store interns).
    Service again = CompactServices.compact(ApiServerServices.decoded(11));

    assertThat(again.getMetadata().getName())
        .isNotSameAs(decoded.getMetadata().getName())
        .isSameAs(compact.getMetadata().getName())
        .isSameAs(decoded.getMetadata().getName().intern());
  }

  @Test
  void malformedServicesStayMalformedWithoutThrowing() {
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("app", null);
    ServicePort unnamed = new ServicePort();
    unnamed.setTargetPort(new IntOrString());
    Service odd =
        new ServiceBuilder()
            .withNewMetadata()
            .withName("odd")
            .endMetadata()
            .withNewSpec()
            .withSelector(nullValue)
            .endSpec()
            .build();
    odd.getSpec().setPorts(Arrays.asList(null, unnamed));

    Service compactOdd = CompactServices.compact(odd);

    assertThat(compactOdd.getSpec().getSelector()).isEqualTo(nullValue);
    assertThat(compactOdd.getSpec().getPorts()).hasSize(2).containsNull();
    assertThat(ServiceSelection.portsOf(compactOdd)).isEqualTo(ServiceSelection.portsOf(odd));
    assertThat(CompactServices.compact(new Service())).isNotNull();
    assertThat(CompactServices.compact(null)).isNull();
    assertThat(ServiceSelection.isControllerManaged(CompactServices.compact(new Service())))
        .isFalse();
    assertThat(List.of(compactOdd.getSpec().getPorts().get(1).getTargetPort()))
        .containsExactly(new IntOrString());
  }
}
