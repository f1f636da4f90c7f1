package dev.routesync.streams;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The open streams of one kind, by connection. A publish only nudges each stream (coalesced,
 * cheap); the stream builds what it sends on its own event loop. When a connection starts shutting
 * down (GOAWAY), its streams are handed to the {@link Drain}, which ends them so clients reconnect
 * elsewhere instead of seeing a reset; when it closes, its streams are told and forgotten.
 *
 * <p>Threading: {@link #wakeAll} runs on the table writer's thread (where the table is published
 * and its trust raised); the rest on connection event loops. The maps are concurrent for that
 * reason.
 *
 * @param <C> the connection the streams are multiplexed on
 * @param <S> the stream
 */
public final class StreamHub<C, S extends HubStream> {

  /**
   * How the streams of a connection that is shutting down end: the one thing the kinds differ in.
   */
  @FunctionalInterface
  public interface Drain<S> {

    /**
     * Ends {@code streams}, all of one connection (at least one), and passes each to {@code ended}
     * once the hub should forget it. Called where {@link StreamHub#endStreamsOf} is.
     */
    void end(Set<S> streams, Consumer<S> ended);
  }

  private final Drain<S> drain;
  private final IntConsumer countChanged;
  private final Map<C, Set<S>> streams = new ConcurrentHashMap<>();

  /**
   * @param countChanged told +1 for each stream added and -1 for each forgotten (a gauge)
   */
  public StreamHub(Drain<S> drain, IntConsumer countChanged) {
    this.drain = drain;
    this.countChanged = countChanged;
  }

  /** A hub whose count nobody reports. */
  public StreamHub(Drain<S> drain) {
    this(drain, delta -> {});
  }

  /** Something every stream must look at (a new version, the table became trusted). */
  public void wakeAll() {
    for (Set<S> onConnection : streams.values()) {
      for (S stream : onConnection) {
        stream.nudge();
      }
    }
  }

  public void add(C connection, S stream) {
    streams.computeIfAbsent(connection, c -> ConcurrentHashMap.newKeySet()).add(stream);
    countChanged.accept(1);
  }

  /** Forgets a stream; a stream already forgotten changes nothing. */
  public void remove(C connection, S stream) {
    Set<S> onConnection = streams.get(connection);
    if (onConnection != null && onConnection.remove(stream)) {
      countChanged.accept(-1);
      if (onConnection.isEmpty()) {
        streams.remove(connection, onConnection);
      }
    }
  }

  /** Ends every stream of a connection that is shutting down, as the {@link Drain} does. */
  public void endStreamsOf(C connection) {
    Set<S> onConnection = streams.get(connection);
    if (onConnection == null) {
      return;
    }
    Set<S> ending = Set.copyOf(onConnection);
    if (!ending.isEmpty()) {
      drain.end(ending, stream -> remove(connection, stream));
    }
  }

  /** Forgets every stream of a connection that closed; nothing can be sent on it any more. */
  public void dropStreamsOf(C connection) {
    Set<S> onConnection = streams.get(connection);
    if (onConnection == null) {
      return;
    }
    for (S stream : Set.copyOf(onConnection)) {
      stream.context().runOnContext(ignored -> stream.closed());
      remove(connection, stream);
    }
  }

  public int size() {
    return streams.values().stream().mapToInt(Set::size).sum();
  }
}
