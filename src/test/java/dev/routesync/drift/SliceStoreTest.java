package dev.routesync.drift;

import static dev.routesync.drift.DriftFixtures.NAMESPACE;
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
    slices.upserted(slice);
    work.clear();

    slices.upserted(
        new EndpointSliceBuilder(slice)
            .editMetadata()
            .addToLabels(dev.routesync.rules.ControllerSlices.SERVICE_NAME_LABEL, "cart")
            .endMetadata()
            .build());

    assertThat(slices.of(QUOTE)).isEmpty();
    assertThat(slices.of(CART)).hasSize(1);
    assertThat(work.slicesChanged).containsExactlyInAnyOrder(QUOTE, CART);
  }

  @Test
  void aRelistedSliceWithoutAResourceVersionCountsAsChanged() {
    EndpointSlice slice = slice("quote", "quote-abc", "http", List.of());
    slices.upserted(slice);
    work.clear();

    slices.listed(List.of(slice));

    assertThat(work.slicesChanged).containsExactly(QUOTE);
  }

  @Test
  void aRelistChangesOnlyTheNewAndTheGone() {
    EndpointSlice kept = versioned(slice("quote", "quote-abc", "http", List.of()));
    slices.upserted(kept);
    slices.upserted(versioned(slice("cart", "cart-abc", "http", List.of())));
    work.clear();

    slices.listed(List.of(kept));

    assertThat(slices.of(CART)).isEmpty();
    assertThat(work.slicesChanged).containsExactly(CART);
  }

  private static EndpointSlice versioned(EndpointSlice slice) {
    return new EndpointSliceBuilder(slice)
        .editMetadata()
        .withResourceVersion("7")
        .endMetadata()
        .build();
  }
}
