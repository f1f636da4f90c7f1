package dev.routesync.testing;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Makes the CRUD mock's watches as faithful about deletions as a real API server's. The mock
 * answers every watch by replaying its current objects as ADDED, whatever resourceVersion it
 * resumes from, so a deletion (or a label change that leaves a selector) made after a client's
 * list, or while its watch was down, is never sent: the client keeps the object as a ghost. A real
 * API server replays the deletion from its watch cache, or, when it no longer holds that point,
 * answers 410 Gone. Here it is always the latter, which is what the mock can do:
 *
 * <ul>
 *   <li>every list of a collection carries a {@code metadata.resourceVersion}, taken from the
 *       mock's counter before the list is served (the mock sends none, so fabric8 watched from
 *       "now");
 *   <li>every DELETE, PUT and PATCH (a PUT may remove a label) takes a fresh number from that
 *       counter once it has been applied: the point of the removal;
 *   <li>a watch resuming from a resourceVersion older than a removal of its resource is answered
 *       with an in-stream 410 Gone, so the client relists (fabric8 relists in place).
 * </ul>
 *
 * <p>Every comparison errs towards 410: a removal racing a list or a resume gives one relist too
 * many, never a ghost; and a relist after the last removal reads a newer number, so it ends.
 */
final class ExpiredResumes {

  static final String GONE_EVENT =
      "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
          + "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410,"
          + "\"message\":\"too old resource version\"}}";

  // The list's own metadata, the last object of the body.
  private static final java.util.regex.Pattern LIST_VERSION =
      java.util.regex.Pattern.compile(
          "\"metadata\": \\{\"resourceVersion\": \"(\\d+)\"[^{}]*\\}\\}\\s*$");

  private final KubernetesCrudDispatcher crud;
  // The point of each resource's latest removal, by plural (endpointslices, services, ...).
  private final Map<String, Long> removedAt = new ConcurrentHashMap<>();
  private final AtomicInteger expired = new AtomicInteger();

  /**
   * @param crud the mock's CRUD store, for its version counter
   */
  ExpiredResumes(KubernetesCrudDispatcher crud) {
    this.crud = crud;
  }

  /** Watches answered 410 because they resumed from before a removal. */
  int expired() {
    return expired.get();
  }

  MockResponse dispatch(RecordedRequest request, Function<RecordedRequest, MockResponse> next) {
    String path = request.getPath();
    Target target = Target.of(path);
    if (target == null) {
      return next.apply(request);
    }
    String method = request.getMethod();
    if ("GET".equals(method) && target.name() == null) {
      if (query(path, "watch").equals("true")) {
        String from = query(path, "resourceVersion");
        Long removed = removedAt.get(target.plural());
        if (!from.isEmpty() && removed != null && removed > parse(from)) {
          expired.incrementAndGet();
          return gone();
        }
        return next.apply(request);
      }
      long listedAt = crud.requestResourceVersion();
      return stamp(next.apply(request), listedAt);
    }
    MockResponse response = next.apply(request);
    if ("DELETE".equals(method) || "PUT".equals(method) || "PATCH".equals(method)) {
      long at = crud.requestResourceVersion();
      removedAt.merge(target.plural(), at, Math::max);
    }
    return response;
  }

  static MockResponse gone() {
    return new MockResponse()
        .withWebSocketUpgrade(
            new WebSocketListener() {
              @Override
              public void onOpen(WebSocket socket, io.fabric8.mockwebserver.http.Response r) {
                socket.send(GONE_EVENT);
              }
            });
  }

  /**
   * The mock's list ends {@code "metadata": {"resourceVersion": "N", "selfLink": ""}}, N being the
   * newest of its items' versions (0 when empty): a deletion of the newest item leaves N below the
   * deletion's point, and the relist would be answered 410 again, for ever. Put the list's point
   * in.
   */
  private static MockResponse stamp(MockResponse response, long resourceVersion) {
    if (response.code() != 200 || response.getBody() == null) {
      return response;
    }
    String body = new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
    java.util.regex.Matcher mocks = LIST_VERSION.matcher(body);
    if (!body.contains("\"kind\":\"List\"") || !mocks.find()) {
      throw new IllegalStateException("fabric8's mock changed its list: " + cut(body));
    }
    return response.setBody(
        body.substring(0, mocks.start(1)) + resourceVersion + body.substring(mocks.end(1)));
  }

  private static String cut(String body) {
    return body.length() <= 200
        ? body
        : body.substring(0, 100) + "..." + body.substring(body.length() - 100);
  }

  private static long parse(String resourceVersion) {
    try {
      return Long.parseLong(resourceVersion);
    } catch (NumberFormatException e) {
      return Long.MIN_VALUE; // not ours to judge: older than anything
    }
  }

  /**
   * The value of query parameter {@code name} in a request path, or "" (also used by {@link
   * WatchResumes}).
   */
  static String query(String path, String name) {
    int question = path.indexOf('?');
    if (question < 0) {
      return "";
    }
    for (String pair : path.substring(question + 1).split("&")) {
      int equals = pair.indexOf('=');
      if (equals > 0 && pair.substring(0, equals).equals(name)) {
        return pair.substring(equals + 1);
      }
    }
    return "";
  }

  /** What a request path names: a resource's plural and, for one object, its name. */
  private record Target(String plural, String name) {

    static Target of(String path) {
      int question = path.indexOf('?');
      String resource = question < 0 ? path : path.substring(0, question);
      List<String> segments = List.of(resource.replaceFirst("^/", "").split("/"));
      int skip;
      if (segments.size() >= 3 && segments.get(0).equals("api")) {
        skip = 2; // api/v1
      } else if (segments.size() >= 4 && segments.get(0).equals("apis")) {
        skip = 3; // apis/<group>/<version>
      } else {
        return null;
      }
      List<String> rest = segments.subList(skip, segments.size());
      if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
        rest = rest.subList(2, rest.size());
      }
      if (rest.isEmpty()) {
        return null;
      }
      return new Target(rest.get(0), rest.size() > 1 ? rest.get(1) : null);
    }
  }
}
