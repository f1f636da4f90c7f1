package dev.routesync.client;

import dev.routesync.api.v1.ClientSync;
import dev.routesync.api.v1.ClientsResponse;
import dev.routesync.api.v1.TypeSync;
import java.time.Duration;

/**
 * {@code routesync get clients} as a table: one row per stream, the most behind first (the agent's
 * order), then a line saying how many are listed of how many.
 *
 * <pre>
 * PROTOCOL   UID    PID    NAME          SUBSCRIBED   SENT/ACKED                 BEHIND   LAST NACK
 * ads        1000   4711   sidecar~cart  3            lds 7/7 cds 7/7 eds 9/7    12s      eds: bad
 * watch      1000   4712   checkout      <none>       services 9/9               0s       <none>
 * 2 of 2 streams listed; 1 behind by more than 5s.
 * </pre>
 *
 * The client-chosen cells (name, NACK) arrive bounded and without control characters; the NACK is
 * cut again here so that a row fits a terminal.
 */
final class ClientsTable {

  /** The NACK message's length in a row; {@code -o json} has it whole (as the agent keeps it). */
  static final int NACK_CELL = 60;

  private ClientsTable() {}

  static String render(ClientsResponse answer) {
    TableFormat table =
        new TableFormat(
            "PROTOCOL", "UID", "PID", "NAME", "SUBSCRIBED", "SENT/ACKED", "BEHIND", "LAST NACK");
    for (ClientSync client : answer.getClientsList()) {
      table.row(
          client.getProtocol(),
          client.hasUid() ? Integer.toUnsignedString(client.getUid()) : "?",
          client.hasPid() ? Integer.toUnsignedString(client.getPid()) : "?",
          orNone(client.getNodeId().isEmpty() ? client.getClientName() : client.getNodeId()),
          Integer.toUnsignedString(client.getSubscribed()),
          versions(client),
          StaleHeader.text(duration(client.getBehind())),
          client.getLastNack().isEmpty()
              ? TableFormat.NONE
              : client.getLastNackType() + ": " + cut(client.getLastNack()));
    }
    StringBuilder text = new StringBuilder(table.render());
    text.append(answer.getClientsCount())
        .append(" of ")
        .append(Integer.toUnsignedString(answer.getTotal()))
        .append(" streams listed");
    if (answer.getTruncated()) {
      text.append(" (the most behind first; --limit up to 500)");
    }
    text.append("; ")
        .append(Integer.toUnsignedString(answer.getBehind()))
        .append(" behind by more than ")
        .append(StaleHeader.text(duration(answer.getBehindThreshold())))
        .append(".\n");
    return text.toString();
  }

  private static String versions(ClientSync client) {
    StringBuilder cell = new StringBuilder();
    for (TypeSync type : client.getTypesList()) {
      if (type.getSentVersion() == 0 && type.getAckedVersion() == 0) {
        continue; // a type the client does not follow
      }
      if (!cell.isEmpty()) {
        cell.append(' ');
      }
      cell.append(type.getType())
          .append(' ')
          .append(Long.toUnsignedString(type.getSentVersion()))
          .append('/')
          .append(Long.toUnsignedString(type.getAckedVersion()));
    }
    return orNone(cell.toString());
  }

  private static String cut(String text) {
    return text.length() <= NACK_CELL ? text : text.substring(0, NACK_CELL) + "...";
  }

  private static String orNone(String text) {
    return text.isEmpty() ? TableFormat.NONE : text;
  }

  static Duration duration(com.google.protobuf.Duration duration) {
    return Duration.ofSeconds(duration.getSeconds(), duration.getNanos());
  }
}
