package dev.routesync.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The JDK HTTP client as tests should use it on TCP: HTTP/1.1 (its default, HTTP/2, sends an h2c
 * upgrade, which only the tests of that upgrade want), and a deadline on the whole exchange. The
 * request timeout alone covers only the wait for the headers, not the body.
 */
public final class Http1 {

  /** The longest one exchange may take, connect to last byte of the body. */
  public static final Duration DEADLINE = Duration.ofSeconds(10);

  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Http1() {}

  public static HttpResponse<String> get(String url) throws IOException {
    return send(HttpRequest.newBuilder(URI.create(url)).GET());
  }

  /** Sends the request and waits for the whole body, at most {@link #DEADLINE}. */
  public static HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
    return send(CLIENT, request);
  }

  /** As {@link #send(HttpRequest.Builder)}, with another client (for example an HTTP/2 one). */
  public static HttpResponse<String> send(HttpClient client, HttpRequest.Builder request)
      throws IOException {
    var exchange =
        client.sendAsync(request.timeout(DEADLINE).build(), HttpResponse.BodyHandlers.ofString());
    try {
      return exchange.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      exchange.cancel(true);
      throw new IOException("no complete answer within " + DEADLINE, e);
    } catch (ExecutionException e) {
      throw new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
