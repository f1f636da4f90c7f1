package dev.routesync.testing;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
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
 *
 * <p>On request ({@link #reuseUnchanged}), a first page is cut from the last whole list of the same
 * query when nothing was written since: a real API server serves a page of 500 from its watch cache
 * in milliseconds, while the mock builds and this class parses the whole list (hundreds of MB at
 * 40,000 slices of 25 endpoints, more than a client's request timeout on a loaded machine, so a
 * client that retries would never get a first page).
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
  private final AtomicInteger wholesParsed = new AtomicInteger();

  // The last whole list per query (without limit, continue and resourceVersion), with the write
  // count it was made at; only with reuseUnchanged.
  private final Map<String, Whole> wholes = new ConcurrentHashMap<>();
  private volatile LongSupplier writes;

  private record Snapshot(ObjectNode list, ArrayNode items, int offset) {}

  private record Whole(long writes, Snapshot snapshot) {}

  /**
   * Cuts first pages from the last whole list of the same query while {@code writes} (the mock's
   * count of writes) has not moved; pages are copies, so a snapshot is never changed.
   */
  public void reuseUnchanged(LongSupplier writes) {
    this.writes = writes;
  }

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
      LongSupplier counter = writes;
      String key = counter == null ? null : queryKey(path, query);
      long written = counter == null ? 0 : counter.getAsLong();
      Whole cached = key == null ? null : wholes.get(key);
      if (cached != null && cached.writes() == written) {
        snapshot = cached.snapshot();
      } else {
        MockResponse whole = next.apply(request);
        snapshot = parsed(whole);
        if (snapshot == null) {
          return whole;
        }
        if (key != null) {
          wholes.put(key, new Whole(written, snapshot));
        }
      }
    }
    return page(snapshot, limit);
  }

  /** The whole list answered, or null when it is no list (or not a 200). */
  private Snapshot parsed(MockResponse whole) {
    {
      if (whole.code() != 200 || whole.getBody() == null) {
        return null;
      }
      JsonNode parsed;
      try {
        parsed = json.readTree(whole.getBody().getBytes());
      } catch (RuntimeException e) {
        return null;
      }
      if (!(parsed instanceof ObjectNode list) || !(list.get("items") instanceof ArrayNode items)) {
        return null; // a single object, not a list
      }
      list.remove("items"); // each page copies the rest of the list, not every item
      wholesParsed.incrementAndGet();
      return new Snapshot(list, items, 0);
    }
  }

  private MockResponse page(Snapshot snapshot, int limit) {
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

  /** Whole lists the mock built and this pager parsed (each first page not cut from a snapshot). */
  public int wholeListsParsed() {
    return wholesParsed.get();
  }

  /** Pages served for a continue token. */
  public int continuedPages() {
    return continued.get();
  }

  /** The list's query without what pages it or names its point: the same list, any page. */
  private static String queryKey(String path, Map<String, String> query) {
    int mark = path.indexOf('?');
    StringBuilder key = new StringBuilder(mark < 0 ? path : path.substring(0, mark));
    new java.util.TreeMap<>(query)
        .forEach(
            (name, value) -> {
              if (!Set.of("limit", "continue", "resourceVersion", "resourceVersionMatch")
                  .contains(name)) {
                key.append('&').append(name).append('=').append(value);
              }
            });
    return key.toString();
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
