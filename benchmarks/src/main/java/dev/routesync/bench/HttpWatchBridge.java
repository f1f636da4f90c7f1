package dev.routesync.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.util.concurrent.TimeUnit;

/**
 * A front for fabric8's CRUD mock that serves watches the way a real API server does to a client
 * that asks without a websocket upgrade (the official Python and JavaScript clients): a chunked
 * HTTP response, one JSON event per line. The CRUD mock only answers watches over websockets
 * ({@code "Connection" header must be "Upgrade"}) and reads {@code watch=True}, which Python sends,
 * as a list.
 *
 * <p>Each such watch opens a websocket watch on the mock and copies its text frames out as lines;
 * other requests are forwarded as they are, with {@code application/json} as the answer's {@code
 * Content-Type} when the mock gives none (the JavaScript client, {@code @kubernetes/client-node},
 * parses nothing else). It runs in the feed's process, so its CPU is not the measured watchers'.
 */
final class HttpWatchBridge implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final HttpClient http = vertx.createHttpClient();
  private final WebSocketClient websockets = vertx.createWebSocketClient();
  private final int mockPort;
  private final HttpServer server;

  HttpWatchBridge(int mockPort) throws Exception {
    this.mockPort = mockPort;
    server =
        vertx
            .createHttpServer()
            .requestHandler(this::handle)
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
  }

  String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  private void handle(HttpServerRequest request) {
    String uri = request.uri();
    if (uri.contains("watch=True") || uri.contains("watch=true") || uri.contains("watch=1")) {
      String watchUri = uri.replace("watch=True", "watch=true").replace("watch=1", "watch=true");
      websockets
          .connect(
              new WebSocketConnectOptions().setHost("127.0.0.1").setPort(mockPort).setURI(watchUri))
          .onSuccess(
              socket -> {
                var response =
                    request
                        .response()
                        .setChunked(true)
                        .putHeader("Content-Type", "application/json");
                socket.textMessageHandler(event -> response.write(event + "\n"));
                socket.closeHandler(v -> response.end());
                request.connection().closeHandler(v -> socket.close());
              })
          .onFailure(error -> request.response().setStatusCode(502).end(error.toString()));
      return;
    }
    request
        .body()
        .compose(
            body ->
                http.request(request.method(), mockPort, "127.0.0.1", uri)
                    .compose(
                        forward -> {
                          forward.headers().setAll(request.headers());
                          return forward.send(body);
                        }))
        .compose(answer -> answer.body().map(b -> new Object[] {answer, b}))
        .onSuccess(
            pair -> {
              var answer = (io.vertx.core.http.HttpClientResponse) pair[0];
              var response = request.response().setStatusCode(answer.statusCode());
              // The CRUD mock answers lists without a Content-Type; a real API server sends one,
              // and the JavaScript client refuses to parse a body without it.
              String type = answer.getHeader("Content-Type");
              response.putHeader("Content-Type", type != null ? type : "application/json");
              response.end((io.vertx.core.buffer.Buffer) pair[1]);
            })
        .onFailure(error -> request.response().setStatusCode(502).end(error.toString()));
  }

  @Override
  public void close() {
    vertx.close();
  }
}
