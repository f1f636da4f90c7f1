package dev.routesync;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The agent's lifecycle over its parts, with parts that record what was asked of them. */
class AgentPartsTest {

  private final List<String> log = new CopyOnWriteArrayList<>();

  private AgentPart part(String name) {
    return AgentPart.of(
        name,
        () -> {
          log.add("start " + name);
          return Future.succeededFuture();
        },
        () -> {
          log.add("stop " + name);
          return Future.succeededFuture();
        });
  }

  /** A part that starts at once, logs its stop, and stops as {@code stop} says. */
  private AgentPart stoppingWith(String name, Supplier<Future<Void>> stop) {
    return AgentPart.of(
        name,
        Future::succeededFuture,
        () -> {
          log.add("stop " + name);
          return stop.get();
        });
  }

  private AgentPart failingToStart(String name, RuntimeException error) {
    return AgentPart.of(
        name,
        () -> {
          log.add("start " + name);
          return Future.failedFuture(error);
        },
        () -> {
          log.add("stop " + name);
          return Future.succeededFuture();
        });
  }

  @Test
  void partsStartInOrderAndStopInReverse() {
    AgentParts parts = new AgentParts().add(part("a")).add(part("b")).add(part("c"));

    assertThat(parts.start().succeeded()).isTrue();
    assertThat(parts.stop().succeeded()).isTrue();

    assertThat(log).containsExactly("start a", "start b", "start c", "stop c", "stop b", "stop a");
  }

  @Test
  void aPartThatFailsToStartStopsThoseStartedBeforeItAndItsFailureSurfaces() {
    RuntimeException taken = new IllegalStateException("port taken");
    AgentParts parts =
        new AgentParts().add(part("a")).add(part("b")).add(failingToStart("c", taken));
    parts.add(part("d"));

    Future<Void> started = parts.start();

    assertThat(started.failed()).isTrue();
    assertThat(started.cause()).isSameAs(taken);
    assertThat(log).containsExactly("start a", "start b", "start c", "stop b", "stop a");
    // A stop afterwards (the agent's) finds nothing left to stop.
    assertThat(parts.stop().succeeded()).isTrue();
    assertThat(log).hasSize(5);
  }

  @Test
  void aDisabledPartIsNeitherStartedNorStopped() {
    AgentParts parts =
        new AgentParts().add(part("a")).add(Optional.empty()).add(Optional.of(part("c")));

    parts.start();
    parts.stop();

    assertThat(parts.names()).containsExactly("a", "c");
    assertThat(log).containsExactly("start a", "start c", "stop c", "stop a");
  }

  @Test
  void eachPartStopsOnlyOnceTheOneAfterItHasStopped() {
    Promise<Void> slowStop = Promise.promise();
    AgentParts parts = new AgentParts().add(part("a")).add(stoppingWith("slow", slowStop::future));
    parts.start();

    Future<Void> stopped = parts.stop();
    assertThat(log).containsExactly("start a", "stop slow");
    assertThat(stopped.isComplete()).isFalse();

    slowStop.complete();
    assertThat(log).containsExactly("start a", "stop slow", "stop a");
    assertThat(stopped.succeeded()).isTrue();
  }

  @Test
  void aPartThatFailsToStopDoesNotKeepTheOthersRunning() {
    AgentParts parts =
        new AgentParts()
            .add(part("a"))
            .add(stoppingWith("b", () -> Future.failedFuture(new IllegalStateException("stuck"))));
    parts.start();

    assertThat(parts.stop().succeeded()).isTrue();
    assertThat(log).containsExactly("start a", "stop b", "stop a");
  }

  @Test
  void noPartStartsOnceTheStopWasAskedFor() {
    Promise<Void> slowStart = Promise.promise();
    AgentParts parts =
        new AgentParts()
            .add(
                AgentPart.of(
                    "slow",
                    slowStart::future,
                    () -> {
                      log.add("stop slow");
                      return Future.succeededFuture();
                    }))
            .add(part("b"));
    Future<Void> started = parts.start();

    parts.stop();
    slowStart.complete();

    assertThat(started.failed()).isTrue();
    assertThat(log).containsExactly("stop slow");
  }

  @Test
  void partsTogetherStartAtOnceAndAllStopWhenOneFails() {
    Promise<Void> slowListen = Promise.promise();
    RuntimeException taken = new IllegalStateException("port taken");
    AgentPart listeners =
        AgentPart.together(
            "listeners",
            List.of(
                AgentPart.of(
                    "socket",
                    () -> {
                      log.add("start socket");
                      return slowListen.future();
                    },
                    () -> {
                      log.add("stop socket");
                      return Future.succeededFuture();
                    }),
                failingToStart("admin", taken)));
    AgentParts parts = new AgentParts().add(part("state")).add(listeners).add(part("watch"));

    Future<Void> started = parts.start();
    assertThat(log).containsExactly("start state", "start socket", "start admin");

    slowListen.complete();
    assertThat(started.cause()).isSameAs(taken);
    assertThat(log)
        .containsExactly(
            "start state",
            "start socket",
            "start admin",
            "stop socket",
            "stop admin",
            "stop state");
  }
}
