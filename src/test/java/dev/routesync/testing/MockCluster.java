package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * fabric8's mock API server in CRUD mode (real HTTP, real watches) on loopback, with a client for
 * the test to write objects. Its dispatcher can be told to answer the next watch with an in-stream
 * 410 Gone, as a real API server does when a watch's resourceVersion is too old.
 */
public final class MockCluster implements AutoCloseable {

  private static final String GONE_EVENT =
      "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
          + "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410,"
          + "\"message\":\"too old resource version\"}}";

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final AtomicBoolean goneOnNextWatch = new AtomicBoolean();
  private final AtomicInteger goneSent = new AtomicInteger();

  public MockCluster() {
    KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(new HashMap<>());
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            if (request.getPath().contains("watch=true")
                && goneOnNextWatch.compareAndSet(true, false)) {
              goneSent.incrementAndGet();
              return new MockResponse()
                  .withWebSocketUpgrade(
                      new WebSocketListener() {
                        @Override
                        public void onOpen(
                            WebSocket socket, io.fabric8.mockwebserver.http.Response r) {
                          socket.send(GONE_EVENT);
                        }
                      });
            }
            return crud.dispatch(request);
          }

          @Override
          public void shutdown() {
            crud.shutdown();
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
    client = server.createClient();
  }

  public int port() {
    return server.getPort();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  public KubernetesClient client() {
    return client;
  }

  /** The next watch request gets a websocket whose first event is ERROR 410 Gone. */
  public void answerNextWatchWithGone() {
    goneOnNextWatch.set(true);
  }

  public int goneEventsSent() {
    return goneSent.get();
  }

  public void apply(EndpointSlice slice) {
    client.resource(slice).createOr(NonDeletingOperation::update);
  }

  public void delete(EndpointSlice slice) {
    client.resource(slice).withTimeoutInMillis(5000).delete();
  }

  public List<EndpointSlice> slices() {
    return client.discovery().v1().endpointSlices().inAnyNamespace().list().getItems();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
