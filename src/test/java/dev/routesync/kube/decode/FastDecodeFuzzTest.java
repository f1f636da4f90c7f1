package dev.routesync.kube.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.function.Supplier;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Whatever the bytes, when the fast path answers, fabric8's own deserialization gives the same
 * object (less what the fast path skips). A normal build replays the inputs under {@code
 * FastDecodeFuzzTestInputs/}; {@code scripts/fuzz.sh} fuzzes.
 */
class FastDecodeFuzzTest {

  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();
  private static final FastKubernetesSerialization FAST = new FastKubernetesSerialization();
  private static final ObjectMapper TREE = new ObjectMapper();

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
    "\"kind\":\"Pod\",\"apiVersion\":\"v1\"",
    "\"spec\":{\"nodeName\":\"n\",\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":80}]}]}",
    "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}",
  })
  void watchEvents(byte[] input) {
    String json = new String(input, StandardCharsets.UTF_8);
    assertAgree(
        serialization -> serialization.unmarshal(json, WatchEvent.class),
        serialization -> serialization.unmarshal(podFieldsOnly(json), WatchEvent.class));
  }

  /**
   * The event with only the fields {@link PodReader} reads of its Pod: a malformed value in a field
   * the reader skips is not read, so fabric8 is asked about the rest. The document itself when it
   * does not parse as a tree.
   */
  private static String podFieldsOnly(String json) {
    try {
      if (TREE.readTree(json) instanceof ObjectNode event
          && event.get("object") instanceof ObjectNode pod) {
        PodProjection.keepOnlyRead(pod);
        return event.toString();
      }
    } catch (RuntimeException e) {
      // not a tree: fabric8 is asked about the document as it is
    }
    return json;
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
    Function<KubernetesSerialization, Object> decode =
        serialization -> serialization.unmarshal(new ByteArrayInputStream(input), type);
    assertAgree(decode, decode);
  }

  /**
   * Whenever the fast path answers, fabric8 gives the same answer. A document it hands on is
   * fabric8's on both sides, and is not compared.
   *
   * <p>Jackson's answer to an invalid UTF-8 byte in a field name depends on the names its parser
   * factory saw before: it pads a short name's last bytes with 0xFF, so {@code "\xffind"} is found
   * as {@code "ind"} once a document had {@code "ind"}, and refused before. fabric8's long-lived
   * mapper and the fast path's long-lived factory have seen different documents, so a document
   * fabric8 refuses is asked again of a fresh fabric8 and a fresh fast path, which have seen
   * nothing: only a refusal from fresh fabric8 where the fresh fast path answers is a disagreement.
   */
  private static void assertAgree(
      Function<KubernetesSerialization, Object> decode,
      Function<KubernetesSerialization, Object> decodeWhatIsRead) {
    long decodedBefore = FAST.decoded();
    Object ours = outcome(() -> decode.apply(FAST));
    if (FAST.decoded() == decodedBefore) {
      return;
    }
    // Of a Pod the fast path reads only some fields (PodReader): fabric8 is asked about those.
    boolean pod = ours instanceof WatchEvent event && event.getObject() instanceof Pod;
    Function<KubernetesSerialization, Object> theirDecode = pod ? decodeWhatIsRead : decode;
    Object theirs = outcome(() -> theirDecode.apply(FABRIC8));
    if (theirs instanceof String) {
      theirs = outcome(() -> theirDecode.apply(new KubernetesSerialization()));
      FastKubernetesSerialization fresh = new FastKubernetesSerialization();
      ours = outcome(() -> decode.apply(fresh));
      if (fresh.decoded() == 0) {
        return;
      }
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
