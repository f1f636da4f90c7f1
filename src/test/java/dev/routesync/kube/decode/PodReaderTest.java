package dev.routesync.kube.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The node's Pods are read on the fast path, and hold exactly what fabric8's own deserialization
 * makes of the fields the agent reads; the rest of a Pod is not read at all.
 */
class PodReaderTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesSerialization fabric8 = new KubernetesSerialization();
  private final FastKubernetesSerialization fast = new FastKubernetesSerialization();

  @Test
  void aPodEventFromARealApiServerDecodesOnTheFastPathAsFabric8ReadsItsKeptFields() {
    String event = "{\"type\":\"MODIFIED\",\"object\":" + realPod() + "}";

    WatchEvent ours = fast.unmarshal(event, WatchEvent.class);

    assertThat(fast.decoded()).isEqualTo(1);
    Pod pod = (Pod) ours.getObject();
    Pod theirs = (Pod) fabric8.unmarshal(event, WatchEvent.class).getObject();
    assertThat(pod).isEqualTo(PodProjection.kept(theirs));
    // What the drift detector reads is there; the bulk of the object is not.
    assertThat(pod.getSpec().getNodeName()).isNotEmpty();
    assertThat(pod.getSpec().getContainers().get(0).getPorts()).isNotEmpty();
    assertThat(pod.getStatus().getConditions()).extracting("type").contains("Ready");
    assertThat(pod.getStatus().getPodIP()).isNotEmpty();
    assertThat(pod.getMetadata().getManagedFields()).isEmpty();
    assertThat(pod.getSpec().getVolumes()).isEmpty();
    assertThat(pod.getStatus().getContainerStatuses()).isEmpty();
  }

  @Test
  void aPodListDecodesOnTheFastPath() {
    String list =
        "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"7\"},"
            + "\"items\":["
            + realPod()
            + "]}";
    TypeReference<PodList> type = new TypeReference<>() {};

    PodList ours = fast.unmarshal(bytes(list), type);

    assertThat(fast.decoded()).isEqualTo(1);
    PodList theirs = fabric8.unmarshal(bytes(list), type);
    assertThat(ours.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(ours.getItems()).containsExactly(PodProjection.kept(theirs.getItems().get(0)));
  }

  @Test
  void aSkippedFieldOfAnyShapeIsNotRead() {
    ObjectNode pod = (ObjectNode) JSON.readTree(realPod());
    ((ObjectNode) pod.get("spec")).put("volumes", 5);
    String event = "{\"type\":\"ADDED\",\"object\":" + pod + "}";

    WatchEvent ours = fast.unmarshal(event, WatchEvent.class);

    assertThat(fast.decoded()).isEqualTo(1);
    PodProjection.keepOnlyRead(pod);
    Pod theirs = fabric8.unmarshal(pod.toString(), Pod.class);
    assertThat(ours.getObject()).isEqualTo(PodProjection.kept(theirs));
  }

  @Test
  void aKeptFieldOfAnotherTypeIsFabric8sToDecide() {
    ObjectNode pod = (ObjectNode) JSON.readTree(realPod());
    ObjectNode port = (ObjectNode) pod.get("spec").get("containers").get(0).get("ports").get(0);
    port.put("containerPort", "8080");
    String event = "{\"type\":\"ADDED\",\"object\":" + pod + "}";

    WatchEvent ours = fast.unmarshal(event, WatchEvent.class);

    assertThat(fast.decoded()).isZero();
    assertThat(fast.handedOn()).isEqualTo(1);
    assertThat(ours).isEqualTo(fabric8.unmarshal(event, WatchEvent.class));
  }

  /** A Pod as kube-apiserver 1.37 serves it (with managedFields), of a Deployment's rollout. */
  private static String realPod() {
    try (InputStream in =
        PodReaderTest.class.getResourceAsStream("pod-from-kube-apiserver-1.37.json")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ByteArrayInputStream bytes(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }
}
