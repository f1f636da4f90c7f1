package dev.routesync.kube.decode;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EndpointsList;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fast path reads every watch event and list of the endpoint kinds into exactly what fabric8's
 * own deserialization makes of them (less unknown fields and {@code managedFields}, which it
 * skips), and hands everything else to fabric8 unchanged.
 */
class FastKubernetesSerializationTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<EndpointSliceList> SLICE_LIST = new TypeReference<>() {};
  private static final TypeReference<EndpointsList> ENDPOINTS_LIST = new TypeReference<>() {};

  private final KubernetesSerialization fabric8 = new KubernetesSerialization();
  private final FastKubernetesSerialization fast = new FastKubernetesSerialization();

  @Test
  void watchEventsOfEitherKindDecodeAsFabric8DecodesThem() {
    Random random = new Random(20261206);
    for (int i = 0; i < 400; i++) {
      RandomDocuments documents = new RandomDocuments(random);
      ObjectNode object = i % 2 == 0 ? documents.slice(true) : documents.endpoints(true);
      String type = List.of("ADDED", "MODIFIED", "DELETED").get(random.nextInt(3));
      String event = watchEvent(type, object, random.nextBoolean());

      long decodedBefore = fast.decoded();
      WatchEvent ours = fast.unmarshal(event, WatchEvent.class);

      assertThat(fast.decoded())
          .as("decoded on the fast path: %s", event)
          .isEqualTo(decodedBefore + 1);
      assertThat(ours)
          .as(event)
          .isEqualTo(ModelsForTests.withoutLeftOuts(fabric8.unmarshal(event, WatchEvent.class)));
    }
  }

  @Test
  void listsOfEitherKindDecodeAsFabric8DecodesThem() {
    Random random = new Random(7);
    for (int i = 0; i < 100; i++) {
      RandomDocuments documents = new RandomDocuments(random);
      boolean slices = i % 2 == 0;
      ObjectNode list = JSON.createObjectNode();
      if (random.nextBoolean()) {
        list.put("kind", slices ? "EndpointSliceList" : "EndpointsList");
        list.put("apiVersion", slices ? "discovery.k8s.io/v1" : "v1");
      } else { // as the CRUD mock writes every list
        list.put("apiVersion", "v1");
        list.put("kind", "List");
      }
      ObjectNode meta = list.putObject("metadata");
      meta.put("resourceVersion", String.valueOf(random.nextInt(100_000)));
      if (random.nextBoolean()) {
        meta.put("continue", "token-" + random.nextInt());
        meta.put("remainingItemCount", random.nextInt(5_000));
      }
      ArrayNode items = list.putArray("items");
      for (int n = random.nextInt(6); n > 0; n--) {
        // A real API server writes list items without kind or apiVersion.
        items.add(slices ? documents.slice(false) : documents.endpoints(false));
      }
      byte[] body = list.toString().getBytes(StandardCharsets.UTF_8);

      Object ours = slices ? list(fast, body, SLICE_LIST) : list(fast, body, ENDPOINTS_LIST);
      Object theirs =
          slices ? list(fabric8, body, SLICE_LIST) : list(fabric8, body, ENDPOINTS_LIST);

      assertThat(ours).as(list.toString()).isEqualTo(ModelsForTests.withoutLeftOuts(theirs));
    }
    assertThat(fast.decoded()).isEqualTo(100);
    assertThat(fast.handedOn()).isZero();
  }

  /** Shapes the fast path does not read as data binding would: fabric8 decides, as before. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        // a port as a string, as a float, past int
        "{'type':'ADDED','object':{'kind':'EndpointSlice','apiVersion':'discovery.k8s.io/v1','metadata':{'name':'a'},'addressType':'IPv4','ports':[{'port':'80'}]}}",
        "{'type':'ADDED','object':{'kind':'EndpointSlice','apiVersion':'discovery.k8s.io/v1','metadata':{'name':'a'},'ports':[{'port':80.0}]}}",
        "{'type':'ADDED','object':{'kind':'EndpointSlice','apiVersion':'discovery.k8s.io/v1','metadata':{'name':'a'},'ports':[{'port':4294967296}]}}",
        // a condition as a string
        "{'type':'ADDED','object':{'kind':'EndpointSlice','apiVersion':'discovery.k8s.io/v1','metadata':{'name':'a'},'endpoints':[{'addresses':['10.0.0.1'],'conditions':{'ready':'true'}}]}}",
        // kind repeated: data binding keeps the last
        "{'type':'ADDED','object':{'kind':'EndpointSlice','apiVersion':'v1','kind':'Service','metadata':{'name':'a'}}}",
        // another version of the kind
        "{'type':'ADDED','object':{'kind':'EndpointSlice','apiVersion':'discovery.k8s.io/v1beta1','metadata':{'name':'a'}}}",
        // the kind not among the first fields
        "{'type':'ADDED','object':{'metadata':{'name':'a'},'kind':'EndpointSlice','apiVersion':'discovery.k8s.io/v1'}}",
        // an ERROR event, another kind, no object, a null object
        "{'type':'ERROR','object':{'kind':'Status','apiVersion':'v1','status':'Failure','reason':'Expired','code':410}}",
        "{'type':'ADDED','object':{'kind':'Service','apiVersion':'v1','metadata':{'name':'a'},'spec':{'ports':[{'port':80}]}}}",
        "{'type':'BOOKMARK'}",
        "{'type':'ADDED','object':null}",
        // trailing content
        "{'type':'ADDED','object':{'kind':'Endpoints','apiVersion':'v1','metadata':{'name':'a'}}} {}",
      })
  void oddShapesAreHandedToFabric8(String singleQuoted) {
    String event = singleQuoted.replace('\'', '"');

    Object ours = outcome(() -> fast.unmarshal(event, WatchEvent.class));
    Object theirs = outcome(() -> fabric8.unmarshal(event, WatchEvent.class));

    assertThat(fast.decoded()).isZero();
    assertThat(fast.handedOn()).isEqualTo(1);
    assertThat(ours).isEqualTo(theirs);
  }

  @Test
  void aBookmarkDecodesOnTheFastPath() {
    String bookmark =
        "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"EndpointSlice\",\"apiVersion\":"
            + "\"discovery.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"12345\","
            + "\"creationTimestamp\":null,\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}";

    WatchEvent event = fast.unmarshal(bookmark, WatchEvent.class);

    assertThat(fast.decoded()).isEqualTo(1);
    assertThat(event).isEqualTo(fabric8.unmarshal(bookmark, WatchEvent.class));
    assertThat(((EndpointSlice) event.getObject()).getMetadata().getResourceVersion())
        .isEqualTo("12345");
  }

  @Test
  void otherTypesAreFabric8sBusiness() {
    String service = "{\"kind\":\"Service\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"}}";

    assertThat(fast.unmarshal(service, Service.class))
        .isEqualTo(fabric8.unmarshal(service, Service.class));
    assertThat(fast.unmarshal("{\"kind\":\"Status\",\"code\":410}", Status.class).getCode())
        .isEqualTo(410);
    assertThat(fast.decoded()).isZero();
  }

  /**
   * Jackson finds an invalid UTF-8 name such as {@code "\xffind"} as {@code "ind"} once its factory
   * saw {@code "ind"} (it pads short names with 0xFF), and refuses it before. An instance's answer
   * depends only on what that instance read, as fabric8's does on its own mapper.
   */
  @Test
  void whatOneInstanceReadDoesNotChangeWhatAnotherDecodes() {
    byte[] seen = "{\"kind\":\"EndpointSliceList\",\"ind\":1,\"items\":[]}".getBytes(UTF_8);
    byte[] invalid = new byte[] {'{', '"', (byte) 0xff, 'i', 'n', 'd', '"', ':', '1', '}'};
    fast.unmarshal(new ByteArrayInputStream(seen), SLICE_LIST);

    FastKubernetesSerialization fresh = new FastKubernetesSerialization();
    Object freshOutcome = outcome(() -> list(fresh, invalid, SLICE_LIST));

    assertThat(fresh.decoded()).isZero();
    assertThat(freshOutcome)
        .isEqualTo(outcome(() -> list(new KubernetesSerialization(), invalid, SLICE_LIST)))
        .asString()
        .contains("KubernetesClientException");
  }

  private static <T> T list(
      KubernetesSerialization serialization, byte[] body, TypeReference<T> type) {
    return serialization.unmarshal(new ByteArrayInputStream(body), type);
  }

  /** The value, or the exception's class and message. */
  private static Object outcome(Supplier<Object> decode) {
    try {
      return decode.get();
    } catch (RuntimeException e) {
      return e.getClass() + ": " + e.getMessage();
    }
  }

  private static String watchEvent(String type, JsonNode object, boolean typeFirst) {
    ObjectNode event = JSON.createObjectNode();
    if (typeFirst) {
      event.put("type", type);
    }
    event.set("object", object);
    if (!typeFirst) {
      event.put("type", type);
    }
    return event.toString();
  }
}
