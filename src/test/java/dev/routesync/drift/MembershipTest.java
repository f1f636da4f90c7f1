package dev.routesync.drift;

import static dev.routesync.drift.DriftFixtures.NAMESPACE;
import static dev.routesync.drift.DriftFixtures.NODE;
import static dev.routesync.drift.DriftFixtures.pod;
import static dev.routesync.drift.DriftFixtures.quote;
import static dev.routesync.drift.DriftFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.rules.CompactServices;
import dev.routesync.sync.FakeScheduler;
import dev.routesync.testing.ApiServerServices;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/** {@link NodePods} and {@link Membership} without the detector: who selects whom, at what cost. */
class MembershipTest {

  private static final ServiceRef QUOTE = new ServiceRef(NAMESPACE, "quote");

  private final FakeScheduler scheduler = new FakeScheduler();
  private final PendingWork work = new PendingWork(scheduler, 1, () -> {});
  private final List<PodState> gone = new ArrayList<>();
  private final NodePods pods = new NodePods(NODE, work, gone::add);
  private final Membership members = new Membership(pods, work);

  @Test
  void aServiceChangeSelectsThisNodesPodsOfItsNamespaceOnly() {
    pods.upserted(pod("quote-1", "u1", NODE, "http", true), 0);
    pods.upserted(pod("quote-2", "u2", NODE, "http", true), 0);
    pods.upserted(pod("quote-3", "u3", "node-b", "http", true), 0);
    members.serviceUpserted(quote("http", "1"), 0);

    members.rescan(QUOTE);

    assertThat(members.membersOf(QUOTE)).containsExactlyInAnyOrder("shop/quote-1", "shop/quote-2");
    assertThat(pods.get("shop/quote-1").services).containsExactly(QUOTE);
    assertThat(pods.get("shop/quote-3")).as("another node's pod").isNull();
    assertThat(work.reevaluate).containsExactlyInAnyOrder("shop/quote-1", "shop/quote-2");
    assertThat(work.touched).containsExactly(QUOTE);
    assertThat(members.selectorChecks()).isEqualTo(2);
  }

  @Test
  void aPodChangeChecksOnlyTheServicesSharingOneOfItsLabels() {
    members.serviceUpserted(quote("http", "1"), 0);
    members.serviceUpserted(service("cart", Map.of("app", "cart"), "http", "1"), 0);
    pods.upserted(pod("quote-1", "u1", NODE, "http", true), 0);
    PodState pod = pods.get("shop/quote-1");

    members.rematch(pod);

    assertThat(pod.services).containsExactly(QUOTE);
    assertThat(members.selectorChecks()).as("cart is no candidate").isEqualTo(1);

    Pod relabelled =
        new PodBuilder(pod.pod)
            .editMetadata()
            .withLabels(Map.of("app", "other"))
            .endMetadata()
            .build();
    pods.upserted(relabelled, 1);
    members.rematch(pod);

    assertThat(pod.services).isEmpty();
    assertThat(members.hasMembers(QUOTE)).isFalse();
    assertThat(members.selectorChecks()).as("no candidate for app=other").isEqualTo(1);
  }

  @Test
  void aPodThatGoesLeavesItsServicesAndIsHandedOverOnce() {
    members.serviceUpserted(quote("http", "1"), 0);
    pods.upserted(pod("quote-1", "u1", NODE, "http", true), 0);
    members.rematch(pods.get("shop/quote-1"));
    work.clear();

    pods.upserted(pod("quote-1", "u2", NODE, "http", true), 1); // a new pod under the same name

    assertThat(gone).extracting(state -> state.uid).containsExactly("u1");
    members.leaveAll(gone.get(0));
    assertThat(members.hasMembers(QUOTE)).isFalse();
    assertThat(work.touched).containsExactly(QUOTE);
    assertThat(pods.get("shop/quote-1").uid).isEqualTo("u2");
  }

  @Test
  void aServiceIsHeldWithOnlyWhatTheRulesRead() {
    Service decoded = ApiServerServices.decoded(7);
    ServiceRef ref = new ServiceRef("shop-007", "checkout-00007");

    members.serviceUpserted(decoded, 0);

    Service held = members.service(ref).service;
    assertThat(held.getMetadata().getManagedFields()).isEmpty();
    assertThat(held.getMetadata().getAnnotations()).isEmpty();
    assertThat(held.getMetadata().getLabels()).isEmpty();
    assertThat(held.getStatus()).isNull();
    assertThat(held.getSpec().getClusterIPs()).isEmpty();
    assertThat(held.getMetadata().getUid()).as("the Event's related Service").isNotNull();
    assertThat(held.getSpec().getSelector()).isEqualTo(decoded.getSpec().getSelector());
    assertThat(held.getSpec().getPorts()).isEqualTo(decoded.getSpec().getPorts());
  }

  @Test
  void aCompactServiceIsHeldAsItIsAndAnUnchangedRelistHandsOverItsInstance() {
    Service compact = CompactServices.compact(ApiServerServices.decoded(1));
    ServiceRef ref = new ServiceRef("shop-001", "checkout-00001");
    members.serviceUpserted(compact, 0);
    assertThat(members.service(ref).service).isSameAs(compact);

    // A relist's new generation holds its own (equal) instance: the detector follows it, so the
    // old generation's copy is not kept alive by the detector alone.
    Service relisted = CompactServices.compact(ApiServerServices.decoded(1));
    members.servicesListed(List.of(relisted), 5);

    assertThat(members.service(ref).service).isSameAs(relisted);
    assertThat(members.service(ref).changedAt).as("unchanged: its grace clock stays").isZero();
  }

  @Test
  void aServiceCostsTheMembershipAFewHundredBytes() {
    System.setProperty("jol.magicFieldOffset", "true");
    int count = 200;
    List<Service> services = ApiServerServices.decodedList(count);
    services.forEach(service -> members.serviceUpserted(service, 0));

    long bytes = GraphLayout.parseInstance(members).totalSize() / count;

    // 8,436 bytes per Service when it held each whole (the decoded Service, about 7,900 of them);
    // now the compact Service (about 700, the very instance the watch's store holds) and the
    // Membership's own state and selector index: 1,137 while the index kept a set per selector
    // pair and a map from each Service to its pair; 974 with the Service held alone.
    System.out.printf("drift Membership, bytes per Service: %,d%n", bytes);
    assertThat(bytes).isLessThanOrEqualTo(1_050);
  }
}
