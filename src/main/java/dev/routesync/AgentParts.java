package dev.routesync;

import io.vertx.core.Future;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's lifecycle over its parts: each part is added only when it is enabled, started in the
 * order added (each once the one before has started) and stopped in the reverse order (each once
 * the one after it has stopped). A part that fails to start stops those started before it, and its
 * failure is the start's. Thread-safe: {@link #stop()} may come from any thread, even while the
 * parts are starting; no part starts after it.
 */
final class AgentParts {

  private static final Logger LOG = LoggerFactory.getLogger(AgentParts.class);

  private final List<AgentPart> parts = new ArrayList<>();
  // The parts whose start was called and which are not stopped yet, the latest first.
  private final Deque<AgentPart> started = new ArrayDeque<>();
  private boolean stopping;

  /** Adds a part; returns this. */
  synchronized AgentParts add(AgentPart part) {
    parts.add(part);
    return this;
  }

  /** Adds the part when there is one (an optional part that is enabled); returns this. */
  AgentParts add(Optional<AgentPart> part) {
    part.ifPresent(this::add);
    return this;
  }

  /** The parts, in start order. */
  synchronized List<String> names() {
    return parts.stream().map(AgentPart::name).toList();
  }

  /** Starts every part in order; fails with the first part's failure, the others stopped. */
  Future<Void> start() {
    List<AgentPart> inOrder;
    synchronized (this) {
      inOrder = List.copyOf(parts);
    }
    return startFrom(inOrder, 0);
  }

  private Future<Void> startFrom(List<AgentPart> inOrder, int index) {
    if (index == inOrder.size()) {
      return Future.succeededFuture();
    }
    AgentPart part = inOrder.get(index);
    synchronized (this) {
      if (stopping) {
        return Future.failedFuture(
            new IllegalStateException("stopped before " + part.name() + " started"));
      }
      // Before its start is called: a stop that comes meanwhile stops it too.
      started.push(part);
    }
    return part.start()
        .recover(
            error -> {
              synchronized (this) {
                started.remove(part);
              }
              LOG.debug("{} did not start", part.name(), error);
              return stopStarted().transform(ignored -> Future.failedFuture(error));
            })
        .compose(ignored -> startFrom(inOrder, index + 1));
  }

  /** Stops every started part, the latest first; a part that fails to stop is logged and passed. */
  Future<Void> stop() {
    synchronized (this) {
      stopping = true;
    }
    return stopStarted();
  }

  private Future<Void> stopStarted() {
    AgentPart part;
    synchronized (this) {
      part = started.poll();
    }
    if (part == null) {
      return Future.succeededFuture();
    }
    Future<Void> stopped;
    try {
      stopped = part.stop();
    } catch (RuntimeException e) {
      stopped = Future.failedFuture(e);
    }
    return stopped
        .onFailure(error -> LOG.warn("{} did not stop cleanly: {}", part.name(), error.toString()))
        .transform(ignored -> stopStarted());
  }
}
