package dev.routesync.xds;

import io.vertx.core.http.HttpConnection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open ADS streams, by connection. A publish only nudges each stream (coalesced, cheap); the
 * stream builds what it sends on its own event loop. Threading: {@link #wakeAll} runs on the table
 * writer's thread, the rest on connection event loops.
 */
final class XdsHub {

  private final Map<HttpConnection, Set<AdsStream>> streams = new ConcurrentHashMap<>();

  void wakeAll() {
    for (Set<AdsStream> onConnection : streams.values()) {
      for (AdsStream stream : onConnection) {
        stream.nudge();
      }
    }
  }

  void add(HttpConnection connection, AdsStream stream) {
    streams.computeIfAbsent(connection, c -> ConcurrentHashMap.newKeySet()).add(stream);
  }

  void remove(HttpConnection connection, AdsStream stream) {
    Set<AdsStream> onConnection = streams.get(connection);
    if (onConnection != null && onConnection.remove(stream) && onConnection.isEmpty()) {
      streams.remove(connection, onConnection);
    }
  }

  /**
   * Ends every stream of a connection that is shutting down (GOAWAY), with OK, one event-loop turn
   * later so the client reads the GOAWAY first and reconnects to the next agent.
   */
  void endStreamsOf(HttpConnection connection) {
    Set<AdsStream> onConnection = streams.remove(connection);
    if (onConnection == null) {
      return;
    }
    for (AdsStream stream : onConnection) {
      stream.context().runOnContext(ignored -> stream.endCleanly());
    }
  }

  /** Forgets the streams of a closed connection. */
  void dropStreamsOf(HttpConnection connection) {
    Set<AdsStream> onConnection = streams.remove(connection);
    if (onConnection == null) {
      return;
    }
    for (AdsStream stream : onConnection) {
      stream.context().runOnContext(ignored -> stream.closed());
    }
  }

  int size() {
    return streams.values().stream().mapToInt(Set::size).sum();
  }
}
