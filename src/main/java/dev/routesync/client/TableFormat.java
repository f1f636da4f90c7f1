package dev.routesync.client;

import java.util.ArrayList;
import java.util.List;

/**
 * Aligned columns in the style of {@code kubectl get}: a header row, each column padded to its
 * widest cell plus three spaces, no trailing spaces, one line per row, each ending in a newline.
 */
public final class TableFormat {

  /** kubectl's tabwriter padding. */
  static final int GAP = 3;

  /** What an empty cell prints, as kubectl does. */
  public static final String NONE = "<none>";

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  public TableFormat(String... header) {
    this.header = List.of(header);
  }

  /** Adds a row; empty cells print {@link #NONE}. */
  public TableFormat row(String... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "a row of " + cells.length + " cells for " + header.size() + " columns");
    }
    List<String> row = new ArrayList<>(cells.length);
    for (String cell : cells) {
      row.add(cell == null || cell.isEmpty() ? NONE : cell);
    }
    rows.add(row);
    return this;
  }

  public boolean isEmpty() {
    return rows.isEmpty();
  }

  /** The header and every row, aligned. */
  public String render() {
    int[] widths = new int[header.size()];
    for (int column = 0; column < widths.length; column++) {
      widths[column] = header.get(column).length();
      for (List<String> row : rows) {
        widths[column] = Math.max(widths[column], row.get(column).length());
      }
    }
    StringBuilder text = new StringBuilder();
    appendLine(text, header, widths);
    for (List<String> row : rows) {
      appendLine(text, row, widths);
    }
    return text.toString();
  }

  private static void appendLine(StringBuilder text, List<String> cells, int[] widths) {
    int last = cells.size() - 1;
    for (int column = 0; column < last; column++) {
      String cell = cells.get(column);
      text.append(cell).append(" ".repeat(widths[column] - cell.length() + GAP));
    }
    text.append(cells.get(last)).append('\n');
  }
}
