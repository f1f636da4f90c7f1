package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MockCluster#createAll} stores objects as POSTs would: what a client reads back (uids,
 * resourceVersions, labels, the node index, paged lists) and what a watch sees are the same, and a
 * name already taken is refused as the mock refuses it.
 */
class BulkCreateTest {

  private static final Duration CONVERGE = Duration.ofSeconds(10);

  private MockCluster cluster;
  private KubernetesClient client;
  private Watch watch;

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
    if (watch != null) {
      watch.close();
    }
    client.close();
  }

  private static Service service(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels("mesh-managed", "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", name)
        .addNewPort()
        .withName("http")
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }

  private static EndpointSlice slice(String name) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels("mesh-managed", "true")
        .endMetadata()
        .withAddressType("IPv4")
        .addNewEndpoint()
        .withAddresses("10.0.0.1")
        .endEndpoint()
        .build();
  }

  private static Pod pod(String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("main")
        .withImage("quote:1")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withPodIP("10.0.0.7")
        .endStatus()
        .build();
  }

  @Test
  void objectsReadBackAsIfPosted() {
    List<String> uids =
        cluster.createAll(List.of(service("cart"), slice("cart-x1"), pod("cart-1", "node-a")));

    Service service = client.services().inNamespace("shop").withName("cart").get();
    EndpointSlice slice =
        client.discovery().v1().endpointSlices().inNamespace("shop").withName("cart-x1").get();
    Pod pod = client.pods().inNamespace("shop").withName("cart-1").get();
    assertThat(uids)
        .containsExactly(
            service.getMetadata().getUid(),
            slice.getMetadata().getUid(),
            pod.getMetadata().getUid())
        .doesNotHaveDuplicates()
        .doesNotContainNull();
    long serviceVersion = Long.parseLong(service.getMetadata().getResourceVersion());
    long sliceVersion = Long.parseLong(slice.getMetadata().getResourceVersion());
    assertThat(sliceVersion).isGreaterThan(serviceVersion);
    assertThat(service.getMetadata().getCreationTimestamp()).isNotBlank();
    assertThat(pod.getStatus().getPodIP()).isEqualTo("10.0.0.7"); // status kept, as on a POST
    // The indexes: labels, and the node index MockCluster installs.
    assertThat(
            client.services().inAnyNamespace().withLabel("mesh-managed", "true").list().getItems())
        .hasSize(1);
    assertThat(
            client.pods().inAnyNamespace().withField("spec.nodeName", "node-a").list().getItems())
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("cart-1");
    // A later POST continues the resourceVersions.
    Service posted = client.resource(service("quote")).create();
    assertThat(Long.parseLong(posted.getMetadata().getResourceVersion()))
        .isGreaterThan(Long.parseLong(pod.getMetadata().getResourceVersion()));
  }

  @Test
  void aTakenNameIsRefusedWhetherPostedOrInTheSameBatch() {
    client.resource(service("cart")).create();

    assertThatThrownBy(() -> cluster.createAll(List.of(service("cart"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("409");
    assertThatThrownBy(() -> cluster.createAll(List.of(service("quote"), service("quote"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("409");
    assertThat(client.services().inNamespace("shop").list().getItems())
        .extracting(s -> s.getMetadata().getName())
        .containsExactlyInAnyOrder("cart", "quote");
  }

  @Test
  void anObjectTheMockRefusesIsRefused() {
    Service nameless = service("cart");
    nameless.getMetadata().setName(null);

    assertThatThrownBy(() -> cluster.createAll(List.of(service("quote"), nameless)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("name or generateName");
    assertThat(client.services().inNamespace("shop").list().getItems())
        .extracting(s -> s.getMetadata().getName())
        .containsExactly("quote");
  }

  @Test
  void listsArePagedAndWatchesSeeTheBatch() {
    List<String> seen = new CopyOnWriteArrayList<>();
    watch =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inAnyNamespace()
            .withLabel("mesh-managed", "true")
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, EndpointSlice slice) {
                    seen.add(action + " " + slice.getMetadata().getName());
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    List<EndpointSlice> slices = new ArrayList<>();
    for (int i = 0; i < 1_200; i++) {
      slices.add(slice("s-" + i));
    }

    cluster.createAll(slices);

    await().atMost(CONVERGE).until(() -> seen.size() == 1_200);
    assertThat(seen).allMatch(event -> event.startsWith("ADDED "));
    assertThat(Set.copyOf(seen)).hasSize(1_200);
    EndpointSliceList first =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inAnyNamespace()
            .list(new ListOptionsBuilder().withLimit(500L).build());
    assertThat(first.getItems()).hasSize(500);
    assertThat(first.getMetadata().getContinue()).isNotBlank();
    assertThat(
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inAnyNamespace()
                .withLabel("mesh-managed", "true")
                .list()
                .getItems())
        .hasSize(1_200);
    // The watch goes on after the batch.
    cluster.apply(slice("later"));
    await().atMost(CONVERGE).until(() -> seen.contains("ADDED later"));
  }
}
