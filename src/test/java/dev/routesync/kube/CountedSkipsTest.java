package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.kube.translate.Skip;
import dev.routesync.kube.translate.SkipReason;
import dev.routesync.table.ServiceKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class CountedSkipsTest {

  private static final ServiceKey WEB = new ServiceKey("shop", "web");
  private static final ServiceKey API = new ServiceKey("shop", "api");

  private static Skip skip(String object, String version, String detail) {
    return new Skip(SkipReason.INVALID_IP, object, version, detail);
  }

  private final CountedSkips counted = new CountedSkips();

  @Test
  void everySkipOfAnObjectVersionIsNewOnceAndOnlyOnce() {
    List<Skip> skips =
        List.of(
            skip("EndpointSlice shop/web-b", "7", "address a"),
            skip("EndpointSlice shop/web-b", "7", "address b"));

    assertThat(counted.firstSeen(WEB, skips)).isEqualTo(skips);
    assertThat(counted.firstSeen(WEB, skips)).isEmpty();
    assertThat(counted.firstSeen(WEB, skips)).isEmpty();
  }

  @Test
  void aNewVersionCountsAgainAndObjectsAreTrackedSeparately() {
    counted.firstSeen(WEB, List.of(skip("EndpointSlice shop/web-b", "7", "x")));

    Skip newVersion = skip("EndpointSlice shop/web-b", "9", "x");
    Skip other = skip("EndpointSlice shop/web-c", "8", "y");
    assertThat(counted.firstSeen(WEB, List.of(newVersion, other)))
        .containsExactly(newVersion, other);
    assertThat(counted.firstSeen(WEB, List.of(newVersion, other))).isEmpty();
  }

  @Test
  void aNewSkipNamingAnObjectVersionAlreadyCountedCountsOnceAndBothStayCounted() {
    // Two skips of one object, one with its version and one without: a skip that the merge of a
    // Service's objects makes names the Service without a version, beside the Service's own.
    Skip own = skip("Service shop/web", "5", "its own");
    Skip merged = skip("Service shop/web", null, "its objects' merge");
    counted.firstSeen(WEB, List.of(own));

    assertThat(counted.firstSeen(WEB, List.of(own, merged))).containsExactly(merged);
    assertThat(counted.firstSeen(WEB, List.of(own, merged))).isEmpty();
  }

  @Test
  void objectsWithoutAVersionCountOnceWhileTheyStayInTheTranslation() {
    Skip unversioned = skip("Endpoints shop/web", null, "x");
    assertThat(counted.firstSeen(WEB, List.of(unversioned))).containsExactly(unversioned);
    assertThat(counted.firstSeen(WEB, List.of(unversioned))).isEmpty();
  }

  @Test
  void remembersOnlyTheLatestTranslationOfEachService() {
    for (int i = 0; i < 1000; i++) {
      counted.firstSeen(WEB, List.of(skip("EndpointSlice shop/web-" + i, "1", "x")));
    }
    assertThat(counted.size()).isEqualTo(1);
    counted.firstSeen(API, List.of(skip("EndpointSlice shop/api-1", "1", "x")));
    assertThat(counted.size()).isEqualTo(2);

    counted.firstSeen(WEB, List.of()); // fixed: nothing malformed left
    counted.forget(API); // gone
    assertThat(counted.size()).isZero();

    // Forgotten means counted again if it comes back.
    Skip back = skip("EndpointSlice shop/api-1", "1", "x");
    assertThat(counted.firstSeen(API, List.of(back))).containsExactly(back);
  }
}
