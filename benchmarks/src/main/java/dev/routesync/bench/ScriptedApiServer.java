package dev.routesync.bench;

import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An API server whose watch feed the benchmark scripts: LIST answers the initial slices, WATCH
 * upgrades to a websocket the benchmark writes MODIFIED events to at the rate it chooses (the CRUD
 * mock sustains only ~500-800 writes/s here; a scripted feed reaches several thousand).
 */
final class ScriptedApiServer implements AutoCloseable {

  private final KubernetesMockServer server;
  private final CompletableFuture<WebSocket> watch = new CompletableFuture<>();

  ScriptedApiServer(List<EndpointSlice> initial) {
    String list =
        Serialization.asJson(
            new EndpointSliceList(
                "discovery.k8s.io/v1",
                initial,
                "EndpointSliceList",
                new ListMetaBuilder().withResourceVersion("1").build()));
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            if (request.getPath().contains("watch=true")) {
              boolean slices = request.getPath().contains("/endpointslices");
              return new MockResponse()
                  .withWebSocketUpgrade(
                      new WebSocketListener() {
                        @Override
                        public void onOpen(WebSocket socket, Response response) {
                          // The agent also watches Services and node Pods (drift detector); the
                          // feed is the EndpointSlice watch, whichever opens first.
                          if (slices) {
                            watch.complete(socket);
                          }
                        }
                      });
            }
            return new MockResponse()
                .setResponseCode(200)
                .addHeader("Content-Type", "application/json")
                .setBody(list);
          }
        };
    server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            new HashMap<>(),
            dispatcher,
            /* useHttps= */ false);
    server.init(InetAddress.getLoopbackAddress(), 0);
  }

  String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** Waits for the agent's watch to open. */
  WebSocket awaitWatch() throws Exception {
    return watch.get(30, TimeUnit.SECONDS);
  }

  /** Sends one MODIFIED event; blocks until written (the mock's websocket send does). */
  static void modified(WebSocket socket, EndpointSlice slice) {
    socket.send("{\"type\":\"MODIFIED\",\"object\":" + Serialization.asJson(slice) + "}");
  }

  @Override
  public void close() {
    try {
      server.destroy();
    } catch (RuntimeException e) {
      // The mock may hold an event loop for a while on close; the numbers are taken by then.
    }
  }
}
