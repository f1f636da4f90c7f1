package dev.routesync.testing;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * List paging ({@code limit} and {@code continue}) for fabric8's CRUD mock, which ignores both and
 * answers every list whole: a client asking for 500 objects at a time gets 40,000 in one response.
 * With this in front of it, a list with a {@code limit} gets that many items and a continue token;
 * the token lists on from the same snapshot (as the API server lists from one resourceVersion), and
 * an unknown or used token is answered 410 Gone ({@code Expired}), as an expired one is.
 *
 * <p>Snapshots are held until their last page is fetched: a client that gives up half-way leaves
 * one behind (bounded by the lists a test makes).
 */
public final class PagedLists {

  private static final String EXPIRED =
      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
          + "\"message\":\"The provided continue parameter is too old\",\"reason\":\"Expired\","
          + "\"code\":410}";

  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, Snapshot> snapshots = new ConcurrentHashMap<>();
  private final AtomicInteger pages = new AtomicInteger();
  private final AtomicInteger continued = new AtomicInteger();

  private record Snapshot(ObjectNode list, ArrayNode items, int offset) {}

  /** Pages a list request that asks for it; any other request goes to {@code next} as it is. */
  public MockResponse dispatch(
      RecordedRequest request, Function<RecordedRequest, MockResponse> next) {
    String path = request.getPath();
    Map<String, String> query = query(path);
    if (!"GET".equalsIgnoreCase(request.getMethod())
        || "true".equals(query.get("watch"))
        || !query.containsKey("limit")) {
      return next.apply(request);
    }
    int limit;
    try {
      limit = Integer.parseInt(query.get("limit"));
    } catch (NumberFormatException e) {
      return next.apply(request);
    }
    if (limit <= 0) {
      return next.apply(request);
    }
    String token = query.get("continue");
    Snapshot snapshot;
    if (token != null && !token.isEmpty()) {
      snapshot = snapshots.remove(token);
      if (snapshot == null) {
        return new MockResponse().setResponseCode(410).setBody(EXPIRED);
      }
      continued.incrementAndGet();
    } else {
      MockResponse whole = next.apply(request);
      if (whole.code() != 200 || whole.getBody() == null) {
        return whole;
      }
      JsonNode parsed;
      try {
        parsed = json.readTree(whole.getBody().getBytes());
      } catch (RuntimeException e) {
        return whole;
      }
      if (!(parsed instanceof ObjectNode list) || !(list.get("items") instanceof ArrayNode items)) {
        return whole; // a single object, not a list
      }
      list.remove("items"); // each page copies the rest of the list, not every item
      snapshot = new Snapshot(list, items, 0);
    }
    int end = Math.min(snapshot.items().size(), snapshot.offset() + limit);
    ObjectNode page = snapshot.list().deepCopy();
    ArrayNode pageItems = page.putArray("items");
    for (int i = snapshot.offset(); i < end; i++) {
      pageItems.add(snapshot.items().get(i));
    }
    ObjectNode metadata =
        page.get("metadata") instanceof ObjectNode meta ? meta : page.putObject("metadata");
    if (end < snapshot.items().size()) {
      String nextToken = UUID.randomUUID().toString();
      snapshots.put(nextToken, new Snapshot(snapshot.list(), snapshot.items(), end));
      metadata.put("continue", nextToken);
      metadata.put("remainingItemCount", snapshot.items().size() - end);
    } else {
      metadata.remove("continue");
      metadata.remove("remainingItemCount");
    }
    pages.incrementAndGet();
    return new MockResponse().setResponseCode(200).setBody(json.writeValueAsBytes(page));
  }

  /** List pages served (first pages and continued ones). */
  public int pagesServed() {
    return pages.get();
  }

  /** Pages served for a continue token. */
  public int continuedPages() {
    return continued.get();
  }

  private static Map<String, String> query(String path) {
    Map<String, String> query = new java.util.HashMap<>();
    int mark = path.indexOf('?');
    if (mark < 0) {
      return query;
    }
    for (String pair : path.substring(mark + 1).split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      query.put(
          URLDecoder.decode(key, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return query;
  }
}
