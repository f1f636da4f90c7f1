package dev.routesync.serve;

import dev.routesync.table.RoutingTable;
import io.vertx.core.http.HttpConnection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open Watch streams, by connection. Each published table version nudges every stream (a nudge
 * is cheap and coalesced; the stream builds its message on its own event loop). When a connection
 * starts shutting down (GOAWAY), its streams are ended cleanly so clients reconnect elsewhere
 * instead of seeing a reset.
 *
 * <p>Threading: {@link #published} and {@link #wakeAll} run on the table writer's thread (where the
 * table is published and its trust raised); the rest on connection event loops. The maps are
 * concurrent for that reason.
 */
final class WatchHub {

  private final ServeObserver observer;
  private final Map<HttpConnection, Set<WatchStream>> streams = new ConcurrentHashMap<>();

  WatchHub(ServeObserver observer) {
    this.observer = observer;
  }

  /** A new table version: wake every stream. */
  void published(RoutingTable table) {
    wakeAll();
  }

  /** Something every stream must look at (a new version, the table became trusted). */
  void wakeAll() {
    for (Set<WatchStream> onConnection : streams.values()) {
      for (WatchStream stream : onConnection) {
        stream.nudge();
      }
    }
  }

  void add(HttpConnection connection, WatchStream stream) {
    streams.computeIfAbsent(connection, c -> ConcurrentHashMap.newKeySet()).add(stream);
    observer.watchSubscribers(1);
  }

  void remove(HttpConnection connection, WatchStream stream) {
    Set<WatchStream> onConnection = streams.get(connection);
    if (onConnection != null && onConnection.remove(stream)) {
      observer.watchSubscribers(-1);
      if (onConnection.isEmpty()) {
        streams.remove(connection, onConnection);
      }
    }
  }

  /**
   * Ends every stream of a connection that is shutting down, with status OK, once nothing is left
   * unwritten on any of them: a stream's end queued behind unwritten data (a client that stopped
   * reading) cannot be sent anyway, and Vert.x logs an NPE for it when the drain timeout cuts the
   * connection. Streams that never flush are dropped when their connection closes.
   */
  void endStreamsOf(HttpConnection connection) {
    Set<WatchStream> onConnection = streams.get(connection);
    if (onConnection == null) {
      return;
    }
    Set<WatchStream> ending = Set.copyOf(onConnection);
    // All streams of a connection share its event loop.
    ending
        .iterator()
        .next()
        .context()
        .runOnContext(
            ignored -> {
              Runnable endAllIfFlushed =
                  () -> {
                    if (ending.stream().allMatch(WatchStream::flushed)) {
                      for (WatchStream stream : ending) {
                        if (stream.isOpen()) {
                          stream.endCleanly();
                          remove(connection, stream);
                        }
                      }
                    }
                  };
              for (WatchStream stream : ending) {
                stream.stopAndWhenFlushed(endAllIfFlushed);
              }
            });
  }

  /** Forgets every stream of a connection that closed; nothing can be sent on it any more. */
  void dropStreamsOf(HttpConnection connection) {
    Set<WatchStream> onConnection = streams.get(connection);
    if (onConnection == null) {
      return;
    }
    for (WatchStream stream : Set.copyOf(onConnection)) {
      stream.context().runOnContext(ignored -> stream.closed());
      remove(connection, stream);
    }
  }

  int size() {
    return streams.values().stream().mapToInt(Set::size).sum();
  }
}
