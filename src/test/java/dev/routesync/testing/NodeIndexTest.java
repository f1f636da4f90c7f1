package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The mock API server indexes Pods by {@code spec.nodeName} as a real one does: a node-scoped list
 * sees only that node's Pods, and a node-scoped watch sees a Pod from the moment it is on the node
 * (created there or bound later) until it is deleted, and nothing of other nodes' Pods.
 */
class NodeIndexTest {

  private static final Duration CONVERGE = Duration.ofSeconds(10);

  private MockCluster cluster;
  private KubernetesClient client;
  private SharedIndexInformer<Pod> informer;
  private final List<String> events = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    cluster = new MockCluster();
    client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(Config.empty())
                    .withMasterUrl(cluster.url())
                    .withRequestTimeout(30_000)
                    .build())
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close(); // first: see MockCluster#url
    if (informer != null) {
      informer.stop();
    }
    client.close();
  }

  private static Pod pod(String namespace, String name, String node, String app) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .addToLabels("app", app)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("main")
        .withImage("quote:1")
        .endContainer()
        .endSpec()
        .build();
  }

  private void create(Pod pod) {
    cluster.client().resource(pod).create();
  }

  private List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).sorted().toList();
  }

  @Test
  void aNodeScopedListSeesOnlyThatNodesPods() {
    create(pod("shop", "a-1", "node-a", "quote"));
    create(pod("shop", "a-2", "node-a", "cart"));
    create(pod("other", "a-3", "node-a", "quote"));
    create(pod("shop", "b-1", "node-b", "quote"));
    create(pod("shop", "pending", null, "quote"));

    List<Pod> onA =
        client.pods().inAnyNamespace().withField("spec.nodeName", "node-a").list().getItems();
    assertThat(names(onA)).containsExactly("a-1", "a-2", "a-3");
    assertThat(
            names(
                client
                    .pods()
                    .inNamespace("shop")
                    .withField("spec.nodeName", "node-a")
                    .withLabel("app", "quote")
                    .list()
                    .getItems()))
        .containsExactly("a-1");
    assertThat(
            names(
                client
                    .pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", "node-c")
                    .list()
                    .getItems()))
        .isEmpty();
    // Without the field selector nothing changes.
    assertThat(names(client.pods().inAnyNamespace().list().getItems()))
        .containsExactly("a-1", "a-2", "a-3", "b-1", "pending");
  }

  @Test
  void aNodeScopedWatchSeesPodsArriveChangeAndLeaveOnlyOnItsNode() {
    create(pod("shop", "a-1", "node-a", "quote"));
    create(pod("shop", "b-1", "node-b", "quote"));
    informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", "node-a")
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    events.add("ADD " + pod.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(Pod before, Pod after) {
                    events.add(
                        "UPDATE "
                            + after.getMetadata().getName()
                            + " app="
                            + after.getMetadata().getLabels().get("app"));
                  }

                  @Override
                  public void onDelete(Pod pod, boolean finalStateUnknown) {
                    events.add("DELETE " + pod.getMetadata().getName());
                  }
                },
                0);
    await().atMost(CONVERGE).until(informer::isWatching);
    assertThat(events).containsExactly("ADD a-1");

    create(pod("shop", "b-2", "node-b", "quote"));
    create(pod("shop", "a-2", "node-a", "quote"));
    create(pod("shop", "pending", null, "quote"));
    await().atMost(CONVERGE).until(() -> events.contains("ADD a-2"));

    // A label change of a node-a Pod is a MODIFIED; of a node-b Pod, nothing.
    cluster.client().pods().inNamespace("shop").withName("a-1").edit(p -> relabel(p, "cart"));
    cluster.client().pods().inNamespace("shop").withName("b-1").edit(p -> relabel(p, "cart"));
    await().atMost(CONVERGE).until(() -> events.contains("UPDATE a-1 app=cart"));

    // The scheduler binds the pending Pod to node-a: it arrives.
    cluster
        .client()
        .pods()
        .inNamespace("shop")
        .withName("pending")
        .edit(p -> new PodBuilder(p).editSpec().withNodeName("node-a").endSpec().build());
    await().atMost(CONVERGE).until(() -> events.contains("ADD pending"));

    cluster.client().pods().inNamespace("shop").withName("a-2").delete();
    cluster.client().pods().inNamespace("shop").withName("b-2").delete();
    await().atMost(CONVERGE).until(() -> events.contains("DELETE a-2"));

    // A last node-a event fences the ones before it: nothing of node-b came in between.
    create(pod("shop", "a-3", "node-a", "quote"));
    await().atMost(CONVERGE).until(() -> events.contains("ADD a-3"));
    assertThat(events)
        .containsExactly(
            "ADD a-1", "ADD a-2", "UPDATE a-1 app=cart", "ADD pending", "DELETE a-2", "ADD a-3");
    assertThat(informer.getStore().list().stream().map(p -> p.getMetadata().getName()).sorted())
        .containsExactly("a-1", "a-3", "pending");
  }

  @Test
  void otherKindsAndLabelSelectorsAreIndexedAsBefore() {
    cluster
        .client()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace("shop")
                .withName("settings")
                .addToLabels("app", "quote")
                .endMetadata()
                .addToData("nodeName", "node-a")
                .build())
        .create();
    create(pod("shop", "a-1", "node-a", "quote"));

    assertThat(client.configMaps().inNamespace("shop").withLabel("app", "quote").list().getItems())
        .hasSize(1);
    assertThat(client.configMaps().inNamespace("shop").withName("settings").get()).isNotNull();
    assertThat(client.pods().inNamespace("shop").withName("a-1").get().getSpec().getNodeName())
        .isEqualTo("node-a");
  }

  private static Pod relabel(Pod pod, String app) {
    return new PodBuilder(pod).editMetadata().addToLabels("app", app).endMetadata().build();
  }
}
