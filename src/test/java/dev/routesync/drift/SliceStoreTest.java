package dev.routesync.drift;

import static dev.routesync.drift.DriftFixtures.NAMESPACE;
import static dev.routesync.drift.DriftFixtures.NODE;
import static dev.routesync.drift.DriftFixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.sync.FakeScheduler;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SliceStore}: slices filed by their Service, and which Services' slices changed. */
class SliceStoreTest {

  private static final ServiceRef QUOTE = new ServiceRef(NAMESPACE, "quote");
  private static final ServiceRef CART = new ServiceRef(NAMESPACE, "cart");

  private final FakeScheduler scheduler = new FakeScheduler();
  private final PendingWork work = new PendingWork(scheduler, 1, () -> {});
  private final SliceStore slices = new SliceStore(work);

  @Test
  void aSliceWhoseServiceLabelChangesMovesAndBothServicesChanged() {
    EndpointSlice slice = slice("quote", "quote-abc", "http", List.of());
    slices.upserted(form(slice));
    work.clear();

    slices.upserted(
        form(
            new EndpointSliceBuilder(slice)
                .editMetadata()
                .addToLabels(dev.routesync.rules.ControllerSlices.SERVICE_NAME_LABEL, "cart")
                .endMetadata()
                .build()));

    assertThat(slices.of(QUOTE)).isEmpty();
    assertThat(slices.of(CART)).hasSize(1);
    assertThat(work.slicesChanged).containsExactlyInAnyOrder(QUOTE, CART);
  }

  @Test
  void aRelistedSliceWithoutAResourceVersionCountsAsChanged() {
    NodeSlice slice = form(slice("quote", "quote-abc", "http", List.of()));
    slices.upserted(slice);
    work.clear();

    slices.listed(List.of(slice));

    assertThat(work.slicesChanged).containsExactly(QUOTE);
  }

  @Test
  void aRelistChangesOnlyTheNewAndTheGone() {
    NodeSlice kept = form(versioned(slice("quote", "quote-abc", "http", List.of())));
    slices.upserted(kept);
    slices.upserted(form(versioned(slice("cart", "cart-abc", "http", List.of()))));
    work.clear();

    slices.listed(List.of(kept));

    assertThat(slices.of(CART)).isEmpty();
    assertThat(work.slicesChanged).containsExactly(CART);
  }

  @Test
  void anUnchangedSliceListedAgainIsNoChangeButTheListedRecordIsTheOneKept() {
    // The informer's store holds the listed record: keeping it, not an equal one, keeps one copy.
    NodeSlice held = form(versioned(slice("quote", "quote-abc", "http", List.of())));
    slices.upserted(held);
    work.clear();
    NodeSlice listed = form(versioned(slice("quote", "quote-abc", "http", List.of())));

    slices.listed(List.of(listed));

    assertThat(work.slicesChanged).isEmpty();
    assertThat(slices.of(QUOTE)).singleElement().isSameAs(listed);
  }

  @Test
  void aSliceListedAgainWithTheSameVersionButOtherContentCountsAsChanged() {
    // An API server restored from a backup (or restarted empty, as the mock is) reuses versions.
    slices.upserted(form(versioned(slice("quote", "quote-abc", "http", List.of()))));
    work.clear();
    NodeSlice other =
        form(
            versioned(
                slice(
                    "quote",
                    "quote-abc",
                    "http",
                    List.of(DriftFixtures.pod("q-1", "uid-1", NODE, "http", true)))));

    slices.listed(List.of(other));

    assertThat(work.slicesChanged).containsExactly(QUOTE);
    assertThat(slices.of(QUOTE)).singleElement().isSameAs(other);
  }

  @Test
  void aServicesSlicesAreKeptSortedByNameAndADeletionDropsOnlyItsOwn() {
    slices.upserted(form(slice("quote", "quote-b", "http", List.of())));
    slices.upserted(form(slice("quote", "quote-a", "http", List.of())));
    slices.upserted(form(slice("quote", "quote-c", "http", List.of())));
    work.clear();

    slices.deleted(NAMESPACE, "quote-b");

    assertThat(slices.of(QUOTE)).extracting(NodeSlice::name).containsExactly("quote-a", "quote-c");
    assertThat(work.slicesChanged).containsExactly(QUOTE);
    slices.deleted(NAMESPACE, "quote-a");
    slices.deleted(NAMESPACE, "quote-c");
    assertThat(slices.of(QUOTE)).isEmpty();
  }

  private static NodeSlice form(EndpointSlice slice) {
    return NodeSlice.of(slice, NODE);
  }

  private static EndpointSlice versioned(EndpointSlice slice) {
    return new EndpointSliceBuilder(slice)
        .editMetadata()
        .withResourceVersion("7")
        .endMetadata()
        .build();
  }
}
