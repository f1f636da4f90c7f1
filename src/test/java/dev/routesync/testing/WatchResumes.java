package dev.routesync.testing;

import dev.routesync.demo.ForwardingWebSocketListener;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Makes the CRUD mock's watches start where they ask to, as a real API server's do. The mock
 * answers every watch by first replaying its current objects as ADDED, whatever resourceVersion the
 * watch starts from; a real API server asked to watch from version N (the version of the list the
 * client has just read) sends only what changed after N. So against the plain mock a client's
 * list-then-watch receives and decodes every object twice, and a benchmark of it measures the mock.
 *
 * <p>A watch from N (not empty, not "0": those mean "current state, as synthetic ADDED", which the
 * mock's replay already is) gets its websocket wrapped so that ADDED events of objects whose
 * resourceVersion is at most N are not sent: the replay of what the client listed. Everything else
 * passes unchanged: ADDED of objects created or changed after N, MODIFIED, DELETED, BOOKMARK,
 * ERROR. The filter sits on the socket, not on the listener's {@code onOpen}, because the mock
 * sends from its own executor, later.
 *
 * <p>Only ADDED events are parsed, and only as far as their object's resourceVersion, with a
 * streaming parser: the mock also generates churn for benchmarks.
 */
final class WatchResumes {

  // The mock writes a WatchEvent as {"object":{...},"type":"ADDED"}: "type" comes last
  // (WatchEvent's property order), so a suffix says which events need parsing at all.
  private static final String ADDED_SUFFIX = "\"type\":\"ADDED\"}";
  private static final JsonFactory JSON = new JsonFactory();

  private final AtomicInteger dropped = new AtomicInteger();

  /** ADDED events not sent so far, over all watches. */
  int replaysDropped() {
    return dropped.get();
  }

  /** {@code response} to {@code request}, its watch websocket filtered if it resumes from N. */
  MockResponse filter(RecordedRequest request, MockResponse response) {
    WebSocketListener listener = response.getWebSocketListener();
    String path = request.getPath();
    if (listener == null || path == null || !path.contains("watch=true")) {
      return response;
    }
    long from = resumePoint(ExpiredResumes.query(path, "resourceVersion"));
    if (from <= 0) {
      return response;
    }
    return response.withWebSocketUpgrade(new Resuming(listener, from));
  }

  /** The version a watch resumes from, or 0 for "from current state" (and anything not ours). */
  private static long resumePoint(String resourceVersion) {
    try {
      return resourceVersion.isEmpty() ? 0 : Long.parseLong(resourceVersion);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** Whether {@code event} is an ADDED of an object at or before {@code from}. */
  static boolean isReplay(String event, long from) {
    if (!event.endsWith(ADDED_SUFFIX)) {
      return false;
    }
    long version = objectResourceVersion(event);
    return version > 0 && version <= from;
  }

  /** {@code object.metadata.resourceVersion} of a watch event, or -1 when it has none. */
  static long objectResourceVersion(String event) {
    try (JsonParser parser = JSON.createParser(ObjectReadContext.empty(), event)) {
      if (parser.nextToken() != JsonToken.START_OBJECT
          || !enter(parser, "object")
          || !enter(parser, "metadata")) {
        return -1;
      }
      while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals("resourceVersion")) {
          return value == JsonToken.VALUE_STRING ? Long.parseLong(parser.getString()) : -1;
        }
        parser.skipChildren();
      }
      return -1;
    } catch (JacksonException | NumberFormatException e) {
      return -1; // not an event we can judge: sent as it is
    }
  }

  /** Moves {@code parser} into the object value of {@code property} of the current object. */
  private static boolean enter(JsonParser parser, String property) {
    while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      if (name.equals(property)) {
        return value == JsonToken.START_OBJECT;
      }
      parser.skipChildren();
    }
    return false;
  }

  /** The mock's listener, handed a filtering socket when the watch opens. */
  private final class Resuming extends ForwardingWebSocketListener {

    private final long from;

    Resuming(WebSocketListener delegate, long from) {
      super(delegate);
      this.from = from;
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
      // The mock keeps this socket and sends every event of the watch through it.
      delegate.onOpen(new Filtering(webSocket, from), response);
    }
  }

  /** A watch's websocket that does not send the replay of what its client already listed. */
  private final class Filtering implements WebSocket {

    private final WebSocket socket;
    private final long from;

    Filtering(WebSocket socket, long from) {
      this.socket = socket;
      this.from = from;
    }

    @Override
    public RecordedRequest request() {
      return socket.request();
    }

    @Override
    public boolean send(String text) {
      if (isReplay(text, from)) {
        dropped.incrementAndGet();
        return true; // as if sent: the mock goes on with the next event
      }
      return socket.send(text);
    }

    @Override
    public boolean send(byte[] bytes) {
      return socket.send(bytes); // the mock sends its events as text
    }

    @Override
    public boolean send(ByteString bytes) {
      return socket.send(bytes);
    }

    @Override
    public boolean close(int code, String reason) {
      return socket.close(code, reason);
    }
  }
}
