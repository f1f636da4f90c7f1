package dev.routesync.demo;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * What the CRUD mock lacks: BOOKMARK events. A real API server sends each watch that asked for them
 * ({@code allowWatchBookmarks=true}, as fabric8's informers do) a bookmark about once a minute,
 * carrying a resourceVersion newer than the watch's; the mock sends none, so to a watchdog every
 * quiet mock watch looks hung. While {@link #every} is on, each open watch of a known kind gets one
 * per period, its version drawn from the mock's own counter (as writes elsewhere in a real cluster
 * move its version), queued behind the watch's events by the mock's own listener.
 *
 * <p>The demo's pretend cluster sends them as a real one does, so its quiet watches are not
 * mistaken for hung ones; the tests' mock cluster sends them on request.
 */
public final class WatchBookmarks implements AutoCloseable {

  /** Plural resource to kind, for the kinds the agent watches. */
  private static final Map<String, String> KINDS =
      Map.of(
          "endpointslices", "EndpointSlice",
          "endpoints", "Endpoints",
          "services", "Service",
          "pods", "Pod");

  private record OpenWatch(WebSocketListener listener, String kind, String apiVersion) {}

  /**
   * {@code WatchEventsListener.sendWebSocketResponse(String, Action)}: public, on a package-private
   * class of the mock (fabric8 8.0.0), so reached by reflection.
   */
  private static final Method SEND = sendMethod();

  private final LongSupplier nextResourceVersion;
  private final Set<OpenWatch> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger sent = new AtomicInteger();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "mock-bookmarks");
            thread.setDaemon(true);
            return thread;
          });
  private ScheduledFuture<?> sending;

  /**
   * @param nextResourceVersion the mock's version counter, moved on by each bookmark
   */
  public WatchBookmarks(LongSupplier nextResourceVersion) {
    this.nextResourceVersion = nextResourceVersion;
  }

  private static Method sendMethod() {
    try {
      Method send =
          Class.forName("io.fabric8.kubernetes.client.server.mock.WatchEventsListener")
              .getMethod("sendWebSocketResponse", String.class, Watcher.Action.class);
      send.setAccessible(true);
      return send;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("fabric8's mock changed: cannot send bookmarks", e);
    }
  }

  /** The CRUD dispatcher's answer to {@code request}, its watch websocket tracked. */
  public MockResponse track(RecordedRequest request, MockResponse response) {
    WebSocketListener listener = response.getWebSocketListener();
    String path = request.getPath();
    if (listener == null
        || !SEND.getDeclaringClass().isInstance(listener)
        || path == null
        || !path.contains("watch=true")) {
      return response;
    }
    String resource = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    String plural = resource.substring(resource.lastIndexOf('/') + 1);
    String kind = KINDS.get(plural);
    if (kind == null) {
      return response;
    }
    String apiVersion = resource.startsWith("/api/v1/") ? "v1" : groupVersion(resource);
    return response.withWebSocketUpgrade(new Tracking(listener, kind, apiVersion));
  }

  /** {@code /apis/discovery.k8s.io/v1/...} to {@code discovery.k8s.io/v1}. */
  private static String groupVersion(String resource) {
    String[] parts = resource.split("/");
    return parts[2] + "/" + parts[3];
  }

  /** From now on, one bookmark per open watch every {@code period}. */
  public synchronized void every(Duration period) {
    stop();
    sending =
        timer.scheduleAtFixedRate(
            this::sendAll, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** No more bookmarks (the server has stopped sending, or never did). */
  public synchronized void stop() {
    if (sending != null) {
      sending.cancel(false);
      sending = null;
    }
  }

  /** Bookmarks sent so far, over all watches. */
  public int sent() {
    return sent.get();
  }

  private void sendAll() {
    for (OpenWatch watch : open) {
      String object =
          "{\"kind\":\""
              + watch.kind()
              + "\",\"apiVersion\":\""
              + watch.apiVersion()
              + "\",\"metadata\":{\"resourceVersion\":\""
              + nextResourceVersion.getAsLong()
              + "\"}}";
      try {
        // Through the mock's own listener: it writes each watch's events from one thread, in
        // order; a second writer on the same websocket could interleave with them.
        SEND.invoke(watch.listener(), object, Watcher.Action.BOOKMARK);
        sent.incrementAndGet();
      } catch (ReflectiveOperationException | RuntimeException closed) {
        open.remove(watch); // its executor has shut down: the watch is closing
      }
    }
  }

  @Override
  public void close() {
    stop();
    timer.shutdownNow();
  }

  /** The mock's own listener, with its websocket recorded while open. */
  private final class Tracking extends ForwardingWebSocketListener {

    private final String kind;
    private final String apiVersion;
    private volatile OpenWatch watch;

    Tracking(WebSocketListener delegate, String kind, String apiVersion) {
      super(delegate);
      this.kind = kind;
      this.apiVersion = apiVersion;
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
      delegate.onOpen(webSocket, response); // first: the initial ADDED events come before any
      watch = new OpenWatch(delegate, kind, apiVersion);
      open.add(watch);
    }

    @Override
    public void onClosing(WebSocket webSocket, int code, String reason) {
      forget();
      delegate.onClosing(webSocket, code, reason);
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
      forget();
      delegate.onClosed(webSocket, code, reason);
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable error, Response response) {
      forget();
      delegate.onFailure(webSocket, error, response);
    }

    private void forget() {
      OpenWatch current = watch;
      if (current != null) {
        open.remove(current);
      }
    }
  }
}
