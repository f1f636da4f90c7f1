package dev.routesync.table;

import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The single writer of the routing table, and the one place it is published.
 *
 * <p>Threading: {@link #publish} must only ever be called from one thread at a time (the sync
 * context's event loop); it is not synchronized because there is exactly one writer. {@link
 * #current()} may be called from any thread and never blocks: publication is one volatile write of
 * an immutable {@link RoutingTable}.
 */
public final class TableWriter implements TableView {

  private final Clock clock;
  private final List<Consumer<RoutingTable>> listeners = new CopyOnWriteArrayList<>();
  private volatile RoutingTable current;

  public TableWriter(Clock clock, int deltaLogCapacity) {
    this(clock, deltaLogCapacity, 0);
  }

  public TableWriter(Clock clock, int deltaLogCapacity, long initialVersion) {
    this.clock = Objects.requireNonNull(clock);
    this.current = RoutingTable.empty(clock.instant(), deltaLogCapacity, initialVersion);
  }

  /** Starts from {@code initial} (a table restored from the state file); publishes continue it. */
  public TableWriter(Clock clock, RoutingTable initial) {
    this.clock = Objects.requireNonNull(clock);
    this.current = Objects.requireNonNull(initial);
  }

  @Override
  public RoutingTable current() {
    return current;
  }

  /** Registers a listener called on the writer's thread after each new version is published. */
  public void onPublish(Consumer<RoutingTable> listener) {
    listeners.add(Objects.requireNonNull(listener));
  }

  /**
   * Applies the changes and publishes a new version if they change anything.
   *
   * @return the table now current: a new version, or the same one when nothing changed
   */
  public RoutingTable publish(
      Map<ServiceKey, ServiceState> upserts, Collection<ServiceKey> removals) {
    RoutingTable previous = current;
    RoutingTable next = previous.apply(upserts, removals, clock.instant());
    if (next == previous) {
      return previous;
    }
    current = next;
    for (Consumer<RoutingTable> listener : listeners) {
      listener.accept(next);
    }
    return next;
  }
}
