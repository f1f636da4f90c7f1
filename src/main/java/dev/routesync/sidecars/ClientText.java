package dev.routesync.sidecars;

/**
 * Client-chosen text (an xDS {@code node.id}, a Watch's {@code client_name}, a NACK's message) as
 * the agent keeps it: cut to a bound and stripped of what would change how the rest of a line
 * reads, so that a client can make neither the answer nor the heap grow, nor forge or reorder what
 * a terminal or a log reader shows.
 */
public final class ClientText {

  /** Longest name kept ({@code node.id}, {@code client_name}), in code points. */
  public static final int MAX_NAME = 128;

  /** Longest NACK message kept, in code points. */
  public static final int MAX_NACK = 256;

  /** What each refused character becomes. */
  static final char REPLACEMENT = '?';

  private ClientText() {}

  /**
   * {@code text} cut to {@code max} code points (then {@code ...}), never inside a surrogate pair,
   * with each character that is not {@link #shown shown} as {@code ?}.
   */
  public static String bounded(String text, int max) {
    if (text == null || text.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), 2 * max) + 3);
    int kept = 0;
    int i = 0;
    while (i < text.length() && kept < max) {
      int c = text.codePointAt(i);
      if (shown(c)) {
        out.appendCodePoint(c);
      } else {
        out.append(REPLACEMENT);
      }
      kept++;
      i += Character.charCount(c);
    }
    if (i < text.length()) {
      out.append("...");
    }
    return out.toString();
  }

  /**
   * Whether {@code c} is shown as it is. Not: C0 and C1 controls; line and paragraph separators
   * (U+2028, U+2029), which break a line as a newline does; format characters, among them the
   * bidirectional embeddings, overrides, isolates and marks (U+202A..U+202E, U+2066..U+2069,
   * U+200E, U+200F, U+061C), which reorder what follows them, and the invisible ones (zero-width
   * space, BOM); and a surrogate without its pair, which no UTF-8 answer can carry.
   */
  static boolean shown(int c) {
    int type = Character.getType(c);
    return !Character.isISOControl(c)
        && type != Character.LINE_SEPARATOR
        && type != Character.PARAGRAPH_SEPARATOR
        && type != Character.FORMAT
        && type != Character.SURROGATE;
  }
}
