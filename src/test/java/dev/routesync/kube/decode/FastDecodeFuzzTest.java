package dev.routesync.kube.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.function.Supplier;
import tools.jackson.core.type.TypeReference;

/**
 * Whatever the bytes, when the fast path answers, fabric8's own deserialization gives the same
 * object (less what the fast path skips). A normal build replays the inputs under {@code
 * FastDecodeFuzzTestInputs/}; {@code scripts/fuzz.sh} fuzzes.
 */
class FastDecodeFuzzTest {

  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();
  private static final FastKubernetesSerialization FAST = new FastKubernetesSerialization();

  @FuzzTest
  @DictionaryEntries({
    "{\"type\":\"MODIFIED\",\"object\":",
    "\"kind\":\"EndpointSlice\",\"apiVersion\":\"discovery.k8s.io/v1\"",
    "\"kind\":\"Endpoints\",\"apiVersion\":\"v1\"",
    "\"metadata\":{\"namespace\":\"shop\",\"name\":\"s\",\"resourceVersion\":\"1\"}",
    "\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":true}}]",
    "\"subsets\":[{\"addresses\":[{\"ip\":\"10.0.0.1\"}],\"ports\":[{\"port\":80}]}]",
    "\"ports\":[{\"name\":\"http\",\"port\":8080,\"protocol\":\"TCP\"}]",
    "\"hints\":{\"forZones\":[{\"name\":\"a\"}]}",
    "\"managedFields\":[{}]",
  })
  void watchEvents(byte[] input) {
    String json = new String(input, StandardCharsets.UTF_8);
    assertAgree(
        () -> FAST.unmarshal(json, WatchEvent.class),
        fabric8 -> fabric8.unmarshal(json, WatchEvent.class));
  }

  @FuzzTest
  @DictionaryEntries({
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[",
    "\"metadata\":{\"resourceVersion\":\"5\",\"continue\":\"c\",\"remainingItemCount\":3}",
    "{\"metadata\":{\"namespace\":\"shop\",\"name\":\"s\"},\"addressType\":\"IPv4\"}",
    "\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":true}}]",
  })
  void endpointSliceLists(byte[] input) {
    TypeReference<EndpointSliceList> type = new TypeReference<>() {};
    assertAgree(
        () -> FAST.unmarshal(new ByteArrayInputStream(input), type),
        fabric8 -> fabric8.unmarshal(new ByteArrayInputStream(input), type));
  }

  /**
   * Whenever the fast path answers, fabric8 gives the same answer. A document it hands on is
   * fabric8's on both sides, and is not compared: fabric8's answer to some malformed documents
   * depends on what its mapper parsed before (an invalid UTF-8 byte in a field name failed on one
   * instance and passed on the other), which says nothing of the fast path. For the same reason a
   * document fabric8's long-lived instance refuses is asked again of a fresh one, which has parsed
   * nothing before: only a refusal from both is a disagreement.
   */
  private static void assertAgree(
      Supplier<Object> fast, Function<KubernetesSerialization, Object> fabric8) {
    long decodedBefore = FAST.decoded();
    Object ours = outcome(fast);
    if (FAST.decoded() == decodedBefore) {
      return;
    }
    Object theirs = outcome(() -> fabric8.apply(FABRIC8));
    if (theirs instanceof String) {
      theirs = outcome(() -> fabric8.apply(new KubernetesSerialization()));
    }
    assertThat(theirs).isNotInstanceOf(String.class);
    assertThat(ours).isEqualTo(ModelsForTests.withoutLeftOuts(theirs));
  }

  /** The value, or the exception's class and message. */
  private static Object outcome(Supplier<Object> decode) {
    try {
      return decode.get();
    } catch (RuntimeException e) {
      return e.getClass() + ": " + e.getMessage();
    }
  }
}
