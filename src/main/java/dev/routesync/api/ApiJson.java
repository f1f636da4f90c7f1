package dev.routesync.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;

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
 * </ul>
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

  private static String print(JsonFormat.Printer printer, MessageOrBuilder message) {
    try {
      return printer.print(message);
    } catch (InvalidProtocolBufferException e) {
      // Only Any fields with unknown types fail, and the Registry API has none.
      throw new IllegalStateException("cannot print " + message.getClass().getSimpleName(), e);
    }
  }
}
