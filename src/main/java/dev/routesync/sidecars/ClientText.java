package dev.routesync.sidecars;

/**
 * Client-chosen text (an xDS {@code node.id}, a Watch's {@code client_name}, a NACK's message) as
 * the agent keeps it: cut to a bound and stripped of control characters, so that a client can make
 * neither the answer nor the heap grow, nor forge lines in a terminal.
 */
public final class ClientText {

  /** Longest name kept ({@code node.id}, {@code client_name}). */
  public static final int MAX_NAME = 128;

  /** Longest NACK message kept. */
  public static final int MAX_NACK = 256;

  private ClientText() {}

  /**
   * {@code text} cut to {@code max} characters (then {@code ...}), control characters as {@code ?}.
   */
  public static String bounded(String text, int max) {
    if (text == null || text.isEmpty()) {
      return "";
    }
    int end = Math.min(text.length(), max);
    StringBuilder out = new StringBuilder(end + 3);
    for (int i = 0; i < end; i++) {
      char c = text.charAt(i);
      out.append(Character.isISOControl(c) ? '?' : c);
    }
    if (text.length() > max) {
      out.append("...");
    }
    return out.toString();
  }
}
