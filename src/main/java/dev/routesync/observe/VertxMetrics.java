package dev.routesync.observe;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.spi.observability.HttpRequest;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;

/**
 * Vert.x's own metrics ({@code vertx_*}) with every label bounded. Vert.x labels HTTP metrics with
 * the request method as the client sent it, and any token is a valid method: 5,000 random ones made
 * 55,000 series and, at 2 x 25,000, an out-of-memory error. So its {@code method} label is off and
 * ours takes its place, with the standard methods as they are and anything else as {@code other}.
 * The tag is bounded before it reaches Micrometer, which would otherwise keep one entry per raw
 * value in its pre-filter cache even if a meter filter rewrote it. Path, route and address labels
 * stay off (Vert.x's default).
 */
public final class VertxMetrics {

  /**
   * Vert.x's default labels less the raw method, plus two that tell apart what our own code opens:
   * the client's name (fabric8's two clients) and the server's local address (the socket and the
   * admin port). Without them both of each pair register the same gauges: Micrometer warns and
   * their counts merge. Neither value comes from a client.
   */
  static final Set<Label> LABELS =
      EnumSet.of(
          Label.HTTP_CODE,
          Label.POOL_TYPE,
          Label.POOL_NAME,
          Label.EB_SIDE,
          Label.CLIENT_NAME,
          Label.LOCAL);

  private static final Set<HttpMethod> STANDARD =
      Set.of(
          HttpMethod.GET,
          HttpMethod.HEAD,
          HttpMethod.POST,
          HttpMethod.PUT,
          HttpMethod.DELETE,
          HttpMethod.PATCH,
          HttpMethod.OPTIONS,
          HttpMethod.TRACE,
          HttpMethod.CONNECT);

  private static final Function<HttpRequest, Iterable<Tag>> METHOD =
      request -> Tags.of("method", method(request.method()));

  private VertxMetrics() {}

  public static MicrometerMetricsOptions options() {
    return new MicrometerMetricsOptions()
        .setEnabled(true)
        .setLabels(EnumSet.copyOf(LABELS))
        .setServerRequestTagsProvider(METHOD)
        .setClientRequestTagsProvider(METHOD);
  }

  /** The method's name if it is a standard one, else {@code other}. */
  static String method(HttpMethod method) {
    return method != null && STANDARD.contains(method) ? method.name() : "other";
  }
}
