package dev.routesync.kube.watch;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One watch feeding two consumers: both get every call, in order, whatever the other does. */
class WatchSinksTest {

  private static final ConfigMap OBJECT =
      new ConfigMapBuilder().withNewMetadata().withName("a").endMetadata().build();

  private final List<String> calls = new ArrayList<>();

  private WatchSink<ConfigMap> recording(String name, boolean fails) {
    return new WatchSink<>() {
      @Override
      public void replaced(Generation<ConfigMap> previous, Generation<ConfigMap> next) {
        calls.add(name + ":replaced");
        if (fails) {
          throw new IllegalStateException(name + " broke");
        }
      }

      @Override
      public void event(WatchEvent<ConfigMap> event) {
        calls.add(name + ":" + event.type().label());
        if (fails) {
          throw new IllegalStateException(name + " broke");
        }
      }
    };
  }

  private static WatchEvent<ConfigMap> added() {
    return new WatchEvent<>(WatchEvent.Type.ADDED, null, OBJECT, 0);
  }

  @Test
  void handsEveryCallToTheFirstThenTheSecond() {
    WatchSink<ConfigMap> tee =
        WatchSinks.tee(recording("first", false), recording("second", false));

    tee.replaced(null, null);
    tee.event(added());

    assertThat(calls)
        .containsExactly("first:replaced", "second:replaced", "first:added", "second:added");
  }

  @Test
  void aFailingFirstDoesNotStarveTheSecond() {
    WatchSink<ConfigMap> tee = WatchSinks.tee(recording("first", true), recording("second", false));

    tee.replaced(null, null);
    tee.event(added());

    assertThat(calls)
        .containsExactly("first:replaced", "second:replaced", "first:added", "second:added");
  }

  @Test
  void aFailingSecondNeitherThrowsNorStopsLaterCalls() {
    WatchSink<ConfigMap> tee = WatchSinks.tee(recording("first", false), recording("second", true));

    tee.event(added());
    tee.event(added());

    assertThat(calls).containsExactly("first:added", "second:added", "first:added", "second:added");
  }
}
