package dev.routesync.testing;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With {@link MockCluster#reusingUnchangedLists}, a paged list asked again with nothing written in
 * between is cut from the last whole list (the mock does not build it again), and a write makes the
 * next list whole and current.
 */
class ReusedListsTest {

  @Test
  void anUnchangedListIsCutFromTheLastOneAndAWriteMakesItCurrent() throws Exception {
    try (MockCluster cluster = new MockCluster().reusingUnchangedLists()) {
      for (int i = 0; i < 5; i++) {
        cluster.apply(slice("shop", "s-" + i, "svc-" + i, true, 8080, List.of()));
      }
      assertThat(names(cluster.client())).hasSize(5);
      assertThat(names(cluster.client())).hasSize(5);
      assertThat(cluster.wholeListsParsed()).isEqualTo(1);

      cluster.apply(slice("shop", "s-5", "svc-5", true, 8080, List.of()));
      assertThat(names(cluster.client())).hasSize(6).contains("s-5");
      assertThat(cluster.wholeListsParsed()).isEqualTo(2);

      cluster
          .client()
          .discovery()
          .v1()
          .endpointSlices()
          .inNamespace("shop")
          .withName("s-0")
          .delete();
      assertThat(names(cluster.client())).hasSize(5).doesNotContain("s-0");
      assertThat(cluster.wholeListsParsed()).isEqualTo(3);
    }
  }

  @Test
  void withoutItEveryFirstPageIsAWholeList() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(slice("shop", "s-0", "svc-0", true, 8080, List.of()));
      names(cluster.client());
      names(cluster.client());
      assertThat(cluster.wholeListsParsed()).isEqualTo(2);
    }
  }

  /** Every slice's name, listed two at a time. */
  private static List<String> names(KubernetesClient client) {
    List<String> names = new ArrayList<>();
    String next = null;
    do {
      var page =
          client
              .discovery()
              .v1()
              .endpointSlices()
              .inAnyNamespace()
              .list(new ListOptionsBuilder().withLimit(2L).withContinue(next).build());
      page.getItems().stream().map(EndpointSlice::getMetadata).forEach(m -> names.add(m.getName()));
      next = page.getMetadata().getContinue();
    } while (next != null && !next.isEmpty());
    return names;
  }
}
