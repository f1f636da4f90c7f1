package dev.routesync.serve;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;

/**
 * The debug listener's first route: refuses what a browser sends on behalf of another site, before
 * any other route reads or changes anything. The listener is on loopback, but an operator's browser
 * is on the same machine as the operator's {@code kubectl port-forward}, and any page it has open
 * may send requests there.
 *
 * <ul>
 *   <li>A {@code Host} that is not {@code localhost}, an address of 127.0.0.0/8 or {@code [::1]}
 *       (any port, or none) gets 421. A page whose own name an attacker made resolve to 127.0.0.1
 *       (DNS rebinding) is same-origin with the listener in the browser's eyes and could read every
 *       answer; its requests still carry its own name. Any port passes: {@code kubectl port-forward
 *       8080:9902} makes the browser name 8080, a port the agent cannot know.
 *   <li>A request other than GET, HEAD or OPTIONS gets 403 when it comes from another origin: its
 *       {@code Sec-Fetch-Site} is there and neither {@code same-origin} nor {@code none}, or its
 *       {@code Origin} is there and is not {@code http://} and the request's own {@code Host}. A
 *       page cannot read the answer to such a request, but sending it is enough: a POST without a
 *       body is a "simple" request, which a browser sends without asking (no CORS preflight). A
 *       request with neither header is not a browser's cross-origin request (browsers send {@code
 *       Origin} on every one) but curl's or the CLI's, and passes. Go's {@code
 *       http.CrossOriginProtection} decides the same way.
 * </ul>
 *
 * <p>Each refusal has a JSON body, is counted ({@link ServeObserver#debugRequestRefused}) and
 * logged at most once a minute per reason ({@link DebugRefusalLog}).
 *
 * <p>Threading: runs on the listener's event loop; holds no state of its own.
 */
final class DebugRequestGate implements Handler<RoutingContext> {

  private final ServeObserver observer;
  private final DebugRefusalLog log;

  DebugRequestGate(ServeObserver observer, DebugRefusalLog log) {
    this.observer = observer;
    this.log = log;
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    List<String> hosts = request.headers().getAll("host");
    // Two Host headers are a request no browser sends; neither is trusted.
    Optional<HostPort> host =
        hosts.size() == 1 ? HostPort.parse(hosts.get(0).trim()) : Optional.empty();
    if (host.isEmpty() || !host.get().isLoopback()) {
      refuse(
          ctx,
          DebugRefusal.HOST,
          421,
          "the debug listener answers only requests for a loopback host (localhost, 127.0.0.1,"
              + " [::1], any port): forward its port with kubectl port-forward and open"
              + " http://127.0.0.1:PORT/status",
          String.join(", ", hosts));
      return;
    }
    if (!isSafe(request.method()) && !fromOwnOrigin(request, host.get())) {
      refuse(
          ctx,
          DebugRefusal.ORIGIN,
          403,
          "a request that changes the agent's state must come from the debug listener's own origin"
              + " (its status page) or from outside a browser (curl); this one came from another"
              + " origin",
          "Origin "
              + request.getHeader("origin")
              + ", Sec-Fetch-Site "
              + request.getHeader("sec-fetch-site"));
      return;
    }
    ctx.next();
  }

  private static boolean isSafe(HttpMethod method) {
    return method == HttpMethod.GET || method == HttpMethod.HEAD || method == HttpMethod.OPTIONS;
  }

  private static boolean fromOwnOrigin(HttpServerRequest request, HostPort host) {
    List<String> sites = request.headers().getAll("sec-fetch-site");
    List<String> origins = request.headers().getAll("origin");
    if (sites.size() > 1 || origins.size() > 1) {
      return false;
    }
    // "none": the user's own act (the address bar, a bookmark); "same-site" is another port of
    // localhost too, another origin.
    if (!sites.isEmpty() && !sites.get(0).equals("same-origin") && !sites.get(0).equals("none")) {
      return false;
    }
    if (origins.isEmpty()) {
      return true;
    }
    // "null" (a sandboxed frame, a data: URL) and https:// are never the listener's origin.
    return HostPort.ofHttpOrigin(origins.get(0)).map(host::sameHostAndPort).orElse(false);
  }

  private void refuse(
      RoutingContext ctx, DebugRefusal why, int status, String message, String sent) {
    observer.debugRequestRefused(why);
    log.refused(why, ctx.request().method() + " " + ctx.request().path(), sent);
    Errors.send(ctx, status, message);
  }
}
