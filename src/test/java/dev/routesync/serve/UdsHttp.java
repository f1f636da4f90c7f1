package dev.routesync.serve;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A plain HTTP/1.1 client over a Unix socket, for tests. */
final class UdsHttp implements AutoCloseable {

  /** Status, content type and body of one answer. */
  record Reply(int status, String contentType, String body) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  private final Vertx vertx = Vertx.vertx();
  private final HttpClient client = vertx.createHttpClient();
  private final Path socket;

  UdsHttp(Path socket) {
    this.socket = socket;
  }

  Reply get(String uri) throws Exception {
    return request(HttpMethod.GET, uri);
  }

  Reply request(HttpMethod method, String uri) throws Exception {
    RequestOptions options =
        new RequestOptions()
            .setServer(SocketAddress.domainSocketAddress(socket.toString()))
            .setHost("localhost")
            .setMethod(method)
            .setURI(uri);
    return client
        .request(options)
        .compose(request -> request.send())
        .compose(
            (HttpClientResponse response) ->
                response
                    .body()
                    .map(
                        body ->
                            new Reply(
                                response.statusCode(),
                                response.getHeader("content-type"),
                                body.toString())))
        .await(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
