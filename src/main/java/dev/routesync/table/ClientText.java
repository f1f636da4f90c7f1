package dev.routesync.table;

/**
 * A value a client sent, made safe to repeat back in an error: on one line, with nothing that a
 * terminal or a log reader would interpret, and bounded in length, since the same text goes into a
 * gRPC trailer, a JSON body, a terminal and, through them, logs.
 */
final class ClientText {

  /** Longer values are cut here; a name is at most 63 characters, so a valid one never is. */
  static final int SHOWN_CHARS = 64;

  private ClientText() {}

  /**
   * {@code value} in double quotes with {@code "}, {@code \} and invisible or line-breaking
   * characters escaped; past {@value #SHOWN_CHARS} characters, cut, with {@code ...} and the full
   * length after it.
   */
  static String quoted(String value) {
    int end = Math.min(value.length(), SHOWN_CHARS);
    if (end < value.length() && Character.isHighSurrogate(value.charAt(end - 1))) {
      end--; // never split a surrogate pair
    }
    StringBuilder out = new StringBuilder(end + 32).append('"');
    for (int i = 0; i < end; i++) {
      appendEscaped(out, value.charAt(i));
    }
    if (end == value.length()) {
      return out.append('"').toString();
    }
    return out.append("...\" (")
        .append(value.codePointCount(0, value.length()))
        .append(" characters)")
        .toString();
  }

  private static void appendEscaped(StringBuilder out, char c) {
    switch (c) {
      case '"' -> out.append("\\\"");
      case '\\' -> out.append("\\\\");
      case '\n' -> out.append("\\n");
      case '\r' -> out.append("\\r");
      case '\t' -> out.append("\\t");
      default -> {
        if (invisible(c)) {
          out.append(String.format("\\u%04x", (int) c));
        } else {
          out.append(c);
        }
      }
    }
  }

  // Controls, line and paragraph separators, and format characters (bidi overrides, zero-width
  // joiners) that would change how the rest of the line reads.
  private static boolean invisible(char c) {
    int type = Character.getType(c);
    return Character.isISOControl(c)
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR
        || type == Character.FORMAT;
  }
}
