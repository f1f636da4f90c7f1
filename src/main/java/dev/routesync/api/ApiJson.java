package dev.routesync.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.JsonFormat;
import com.google.protobuf.util.Timestamps;
import dev.routesync.api.v1.ServiceEndpoints;
import java.util.Optional;

/**
 * The one JSON mapping of the API: the proto3 canonical JSON mapping of the {@code routesync.v1}
 * messages. The HTTP API's bodies and the client's {@code -o json} are both printed here, so a
 * script reads the same document from {@code curl} and from {@code routesync get}.
 *
 * <p>The gRPC API is the contract and JSON is a view of it, so the mapping's rules apply as the
 * protobuf spec writes them:
 *
 * <ul>
 *   <li>64-bit integers ({@code version}) are JSON strings: JavaScript numbers lose precision past
 *       2^53. 32-bit ones ({@code port}) stay numbers.
 *   <li>Every field is printed, also at its default ({@code "zone": ""}, {@code "ready": false},
 *       {@code "endpoints": []}): a script needs to know neither the defaults nor which fields an
 *       answer may leave out. "Unknown" is the empty string, never {@code null}.
 *   <li>Field names as the {@code .proto} writes them ({@code snake_case}), so the JSON a person
 *       reads has the names of the file they look them up in.
 *   <li>A message-typed field that is unset is left out: {@code synced_at} (a {@code Timestamp},
 *       printed in RFC 3339) before the agent first heard from the API server.
 * </ul>
 *
 * <p>One answer is a message with two more members: one Service ({@link #compactService}) carries
 * its table's {@code stale} and {@code synced_at} beside its own fields, printed as {@code
 * ListResponse} prints them. Resolve's message cannot gain them (a table's staleness is no field of
 * a Service, and List and Watch carry it once for all), and a wrapper object would break every
 * client of the single-service answer; a new member breaks none that reads JSON leniently.
 */
public final class ApiJson {

  private static final JsonFormat.Printer INDENTED =
      JsonFormat.printer().alwaysPrintFieldsWithNoPresence().preservingProtoFieldNames();
  private static final JsonFormat.Printer COMPACT = INDENTED.omittingInsignificantWhitespace();

  private ApiJson() {}

  /** One line, no trailing newline: an HTTP body. */
  public static String compact(MessageOrBuilder message) {
    return print(COMPACT, message);
  }

  /** One line ending in a newline: a JSON Lines record, as {@code watch -o json} prints. */
  public static String line(MessageOrBuilder message) {
    return compact(message) + "\n";
  }

  /** Indented and ending in a newline, for a person reading one answer. */
  public static String pretty(MessageOrBuilder message) {
    return print(INDENTED, message) + "\n";
  }

  /** One Service with its table's freshness, on one line: {@code GET /v1/services/{ns}/{name}}. */
  public static String compactService(
      ServiceEndpoints service, boolean stale, Optional<Timestamp> syncedAt) {
    String json = compact(service);
    return json.substring(0, json.length() - 1) + freshness(",", ":", stale, syncedAt) + "}";
  }

  /** The same, indented and ending in a newline, as {@code get endpoints -o json} prints it. */
  public static String prettyService(
      ServiceEndpoints service, boolean stale, Optional<Timestamp> syncedAt) {
    String json = print(INDENTED, service);
    // The printer ends an indented object with "\n}".
    return json.substring(0, json.length() - 2)
        + freshness(",\n  ", ": ", stale, syncedAt)
        + "\n}\n";
  }

  // The members as the printer writes them (Timestamps.toString is what it prints a Timestamp
  // with), each preceded by the separator.
  private static String freshness(
      String separator, String colon, boolean stale, Optional<Timestamp> syncedAt) {
    StringBuilder members = new StringBuilder();
    members.append(separator).append("\"stale\"").append(colon).append(stale);
    syncedAt.ifPresent(
        at ->
            members
                .append(separator)
                .append("\"synced_at\"")
                .append(colon)
                .append('"')
                .append(Timestamps.toString(at))
                .append('"'));
    return members.toString();
  }

  private static String print(JsonFormat.Printer printer, MessageOrBuilder message) {
    try {
      return printer.print(message);
    } catch (InvalidProtocolBufferException e) {
      // Only Any fields with unknown types fail, and the Registry API has none.
      throw new IllegalStateException("cannot print " + message.getClass().getSimpleName(), e);
    }
  }
}
