package dev.routesync.serve;

import dev.routesync.api.ApiJson;
import dev.routesync.table.FreshnessView;
import dev.routesync.table.ServiceEndpoints;
import java.util.Iterator;
import java.util.List;

/**
 * The {@code ListResponse} JSON of {@code GET /v1/services}, written a Service at a time: the
 * envelope's members before and after the {@code services} array, and each Service as {@link
 * ApiJson} prints it. Joined, the pieces are the very document {@code ApiJson.compact} prints for
 * the whole message (a test holds them equal), without the whole table's text ever held at once.
 *
 * @param head the envelope up to and including {@code "services":[}
 * @param tail from the array's {@code ]} to the end of the document
 */
record ServicesJson(String head, String tail) {

  private static final String EMPTY_ARRAY = "\"services\":[]";

  /** The envelope of a list at {@code version} with {@code freshness}'s staleness. */
  static ServicesJson envelope(long version, FreshnessView freshness) {
    String empty = ApiJson.compact(ProtoMapping.list(version, List.of(), freshness));
    int at = empty.indexOf(EMPTY_ARRAY);
    if (at < 0) {
      throw new IllegalStateException("a ListResponse printed without its services: " + empty);
    }
    int open = at + EMPTY_ARRAY.length() - 1;
    return new ServicesJson(empty.substring(0, open), empty.substring(open));
  }

  /**
   * Appends Services from {@code services} to {@code out}, each preceded by a comma unless it is
   * the first of the document, until {@code out} holds at least {@code atLeastChars} or none is
   * left. Returns how many Services were written so far (counting {@code written} before).
   */
  static int appendUntil(
      StringBuilder out, Iterator<ServiceEndpoints> services, int written, int atLeastChars) {
    while (services.hasNext() && out.length() < atLeastChars) {
      if (written > 0) {
        out.append(',');
      }
      out.append(ApiJson.compact(ProtoMapping.service(services.next())));
      written++;
    }
    return written;
  }
}
