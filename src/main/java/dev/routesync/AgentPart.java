package dev.routesync;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.function.Supplier;

/**
 * One part of the agent that starts and stops with it: a listener, a watch, a timer, the state
 * writer. {@link AgentParts} starts the parts in the order they were added and stops them in the
 * reverse order, each after the one before has finished.
 */
interface AgentPart {

  /** What the logs call this part. */
  String name();

  /** Starts the part; the future fails when it cannot run (the agent then does not start). */
  Future<Void> start();

  /** Stops the part; called once, and only after {@link #start()} succeeded or is under way. */
  Future<Void> stop();

  /** A part made of two actions. */
  /**
   * Runs {@code action} on {@code context}: completes when it has run, fails with what it threw.
   * For a part whose state lives on the sync context.
   */
  static Future<Void> on(Context context, Runnable action) {
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        ignored -> {
          try {
            action.run();
            done.complete();
          } catch (RuntimeException e) {
            done.fail(e);
          }
        });
    return done.future();
  }

  static AgentPart of(String name, Supplier<Future<Void>> start, Supplier<Future<Void>> stop) {
    return new AgentPart() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Future<Void> start() {
        return start.get();
      }

      @Override
      public Future<Void> stop() {
        return stop.get();
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  /** A part that began when it was built (the socket's listen, the event recorder's worker). */
  static AgentPart running(String name, Supplier<Future<Void>> stop) {
    return of(name, Future::succeededFuture, stop);
  }

  /**
   * Parts that start together and stop together, such as the listeners: none waits for another.
   * When one fails to start, every one of them is stopped once all have answered, and the first
   * failure is the group's.
   */
  static AgentPart together(String name, List<AgentPart> parts) {
    List<AgentPart> members = List.copyOf(parts);
    return of(
        name,
        () -> {
          List<Future<Void>> starts = members.stream().map(AgentPart::start).toList();
          return Future.join(starts)
              .<Void>mapEmpty()
              .recover(
                  error ->
                      stopAll(members)
                          .transform(
                              ignored ->
                                  Future.failedFuture(
                                      starts.stream()
                                          .filter(Future::failed)
                                          .findFirst()
                                          .map(Future::cause)
                                          .orElse(error))));
        },
        () -> stopAll(members));
  }

  private static Future<Void> stopAll(List<AgentPart> members) {
    return Future.join(members.stream().map(AgentPart::stop).toList()).mapEmpty();
  }
}
