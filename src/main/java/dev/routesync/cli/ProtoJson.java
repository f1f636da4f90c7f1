package dev.routesync.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;

/**
 * {@code -o json}: the canonical proto3 JSON mapping, with every field printed, also the ones at
 * their default ({@code "ready": false}, {@code "zone": ""}), so scripts need not know the
 * defaults. 64-bit versions print as strings, as the mapping requires.
 */
public final class ProtoJson {

  private static final JsonFormat.Printer PRETTY =
      JsonFormat.printer().alwaysPrintFieldsWithNoPresence();
  private static final JsonFormat.Printer ONE_LINE = PRETTY.omittingInsignificantWhitespace();

  private ProtoJson() {}

  /** Indented, for one answer; ends in a newline. */
  public static String pretty(MessageOrBuilder message) {
    return print(PRETTY, message) + "\n";
  }

  /** One line, for JSON Lines streams; ends in a newline. */
  public static String line(MessageOrBuilder message) {
    return print(ONE_LINE, message) + "\n";
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
