package dev.routesync.serve;

import dev.routesync.units.Durations;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.grpc.common.GrpcStatus;
import java.time.Duration;
import java.util.List;

/**
 * The body timeout: a request whose body has not fully arrived within it of its headers is
 * cancelled. Without it, an HTTP/2 stream opened with HEADERS and no END_STREAM is never timed out:
 * the header timer stops once a stream is open, and a gRPC call without {@code grpc-timeout} has no
 * deadline, so a client could hold connections (and the cap) for ever with half-sent calls.
 *
 * <p>What the client gets: on gRPC, {@code DEADLINE_EXCEEDED} naming the limit (a trailers-only
 * answer) and then RST_STREAM(CANCEL), as the call's request will not be read any further; on
 * HTTP/JSON, 408 with the JSON error body when nothing was answered yet; an HTTP/1 connection is
 * then closed (its framing is lost mid-body), an HTTP/2 stream reset.
 *
 * <p>Only calls whose client side is one message are timed: unary and server-streaming (a Watch
 * whose request has arrived runs for as long as it likes). Calls whose client streams, ADS and
 * server reflection, are exempt: their request side stays open by design.
 *
 * <p>Threading: armed on the request's event loop; the timer fires there too. One timer per
 * request, cancelled as soon as the request has ended.
 */
final class BodyDeadline {

  /** The client-streaming services: their request side stays open for the whole call. */
  private static final List<String> CLIENT_STREAMING =
      List.of(
          "/envoy.service.discovery.v3.AggregatedDiscoveryService/",
          "/grpc.reflection.v1.ServerReflection/",
          "/grpc.reflection.v1alpha.ServerReflection/");

  private final Vertx vertx;
  private final Duration timeout;
  private final ServeObserver observer;

  BodyDeadline(Vertx vertx, Duration timeout, ServeObserver observer) {
    this.vertx = vertx;
    this.timeout = timeout;
    this.observer = observer;
  }

  /** Whether {@code path}'s requests are timed: all but the client-streaming services'. */
  static boolean timed(String path) {
    for (String prefix : CLIENT_STREAMING) {
      if (path.startsWith(prefix)) {
        return false;
      }
    }
    return true;
  }

  /** Times {@code request} unless it has ended already or is exempt; before it is handled. */
  void arm(HttpServerRequest request, boolean grpc) {
    if (request.isEnded() || !timed(request.path())) {
      return;
    }
    long timer = vertx.setTimer(timeout.toMillis(), fired -> expire(request, grpc));
    request.end().onComplete(ended -> vertx.cancelTimer(timer)); // ended, reset or closed
  }

  private void expire(HttpServerRequest request, boolean grpc) {
    if (request.isEnded()) {
      return;
    }
    observer.bodyTimedOut(listenerOf(request));
    EarlyAnswer.end(
        request,
        grpc,
        GrpcStatus.DEADLINE_EXCEEDED,
        408,
        "request body not received within " + Durations.format(timeout));
  }

  private static Listener listenerOf(HttpServerRequest request) {
    return request.localAddress() != null && request.localAddress().isInetSocket()
        ? Listener.TCP
        : Listener.SOCKET;
  }
}
