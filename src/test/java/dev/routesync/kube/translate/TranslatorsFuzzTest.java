package dev.routesync.kube.translate;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.routesync.kube.SkipReporter;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.TableLimits;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import tools.jackson.core.type.TypeReference;

/**
 * The translators from JSON bytes, through fabric8's deserializer (the informers' own), to table
 * endpoints. Whatever the deserializer makes of the bytes, translation returns: what it cannot use
 * is a {@link Skip}, never an exception; and what it returns is servable (canonical IPs, valid
 * sorted ports, sorted unique endpoints, one routable set) and within what a table holds. A normal
 * build replays the inputs under {@code TranslatorsFuzzTestInputs/}; {@code scripts/fuzz.sh}
 * fuzzes.
 */
class TranslatorsFuzzTest {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** One Service's slices, as a JSON array of EndpointSlice objects. */
  @FuzzTest
  @DictionaryEntries({
    "\"addressType\":\"IPv4\"",
    "\"addressType\":\"IPv6\"",
    "\"addressType\":\"FQDN\"",
    "\"kubernetes.io/service-name\"",
    "\"conditions\":{\"ready\":false,\"serving\":true,\"terminating\":true}",
    "\"ports\":[{\"name\":\"http\",\"port\":8080,\"protocol\":\"TCP\"}]",
    "\"addresses\":[\"10.0.0.1\"]",
    "\"addresses\":[\"fd00::1\"]",
    "\"targetRef\":{\"kind\":\"Pod\",\"name\":\"p\"}",
    "\"metadata\":{\"namespace\":\"shop\",\"name\":\"s\",\"resourceVersion\":\"1\"",
  })
  void endpointSlices(byte[] json) {
    List<EndpointSlice> slices;
    try {
      slices =
          SERIALIZATION.unmarshal(
              new String(json, StandardCharsets.UTF_8),
              new TypeReference<List<EndpointSlice>>() {});
    } catch (RuntimeException notSlices) {
      return; // the deserializer's refusal, before any of our code
    }
    if (slices == null) {
      return;
    }
    Translation translation = SliceTranslator.translate(slices);
    assertServable(translation);
    reportSkips(translation);

    // The cache hands slices over in any order: the answer is the same (names are unique in a
    // cache, so only then).
    Set<String> names = new HashSet<>();
    boolean unique = slices.stream().allMatch(s -> names.add(SliceTranslator.describe(s)));
    if (unique) {
      List<EndpointSlice> reversed = new ArrayList<>(slices);
      Collections.reverse(reversed);
      assertThat(SliceTranslator.translate(reversed)).isEqualTo(translation);
    }
    for (EndpointSlice slice : slices) {
      SliceTranslator.serviceKeyOf(slice); // never throws
    }
  }

  /** One legacy Endpoints object, as JSON. */
  @FuzzTest
  @DictionaryEntries({
    "\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":80}]}]",
    "\"notReadyAddresses\":[{\"ip\":\"10.0.0.2\"}]",
    "\"ip\":\"fd00::1\"",
    "\"targetRef\":{\"kind\":\"Pod\",\"name\":\"p\"}",
    "\"metadata\":{\"namespace\":\"shop\",\"name\":\"cart\",\"resourceVersion\":\"1\"}",
  })
  void endpoints(byte[] json) {
    Endpoints endpoints;
    try {
      endpoints =
          SERIALIZATION.unmarshal(new String(json, StandardCharsets.UTF_8), Endpoints.class);
    } catch (RuntimeException notEndpoints) {
      return;
    }
    Translation translation = EndpointsTranslator.translate(endpoints);
    assertServable(translation);
    reportSkips(translation);
    EndpointsTranslator.serviceKeyOf(endpoints); // never throws
  }

  private static void assertServable(Translation translation) {
    List<Endpoint> endpoints = translation.endpoints();
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint endpoint = endpoints.get(i);
      assertThat(IpAddresses.canonical(endpoint.ip())).as("canonical IP").isEqualTo(endpoint.ip());
      if (i > 0) {
        assertThat(endpoints.get(i - 1).ip()).as("sorted, unique").isLessThan(endpoint.ip());
      }
      List<Port> ports = endpoint.ports();
      // Within what a table holds, so that the state file can always be written and read back.
      assertThat(ports.size()).as("ports").isLessThanOrEqualTo(TableLimits.MAX_PORTS);
      for (String text : new String[] {endpoint.zone(), endpoint.node(), endpoint.pod()}) {
        assertThat(TableLimits.fits(text)).as("a table string: %s", text).isTrue();
      }
      for (String hint : endpoint.hints().forZones()) {
        assertThat(TableLimits.fits(hint)).as("a zone hint").isTrue();
      }
      for (String hint : endpoint.hints().forNodes()) {
        assertThat(TableLimits.fits(hint)).as("a node hint").isTrue();
      }
      for (int j = 0; j < ports.size(); j++) {
        Port port = ports.get(j);
        assertThat(port.port()).isBetween(1, 65535);
        assertThat(port.name()).isNotNull();
        assertThat(port.protocol()).isNotNull();
        assertThat(TableLimits.fits(port.name()) && TableLimits.fits(port.protocol())).isTrue();
        if (j > 0) {
          assertThat(ports.get(j - 1).compareTo(port)).as("ports sorted").isLessThanOrEqualTo(0);
        }
      }
    }
    // Ready endpoints, or (kube-proxy's fallback) only serving terminating ones.
    boolean anyReady = endpoints.stream().anyMatch(Endpoint::ready);
    for (Endpoint endpoint : endpoints) {
      assertThat(anyReady ? endpoint.ready() : endpoint.serving() && endpoint.terminating())
          .as("routable: %s", endpoint)
          .isTrue();
    }
    for (Skip skip : translation.skips()) {
      assertThat(skip.reason()).isNotNull();
      assertThat(skip.object()).isNotNull();
      assertThat(skip.detail()).isNotNull();
    }
  }

  // The agent's path for skips: each is counted once by reason, and logging them never throws. One
  // reporter for the run, on a clock that never passes its interval: at most one warning per
  // reason is logged, however many inputs are tried.
  private static final long[] COUNTED = {0};
  private static final SkipReporter REPORTER =
      new SkipReporter(
          reason -> {
            Objects.requireNonNull(reason);
            COUNTED[0]++;
          },
          () -> 0L,
          1,
          TimeUnit.HOURS);

  private static void reportSkips(Translation translation) {
    long before = COUNTED[0];
    translation.skips().forEach(REPORTER::report);
    assertThat(COUNTED[0] - before).isEqualTo(translation.skips().size());
  }
}
