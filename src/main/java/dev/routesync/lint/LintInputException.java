package dev.routesync.lint;

/**
 * Input lint cannot read: a missing path, bytes that are not UTF-8, YAML that does not parse, or a
 * document that is no Kubernetes object. Exit code 2, one line naming the file and, where there is
 * one, the line.
 */
final class LintInputException extends Exception {

  private static final long serialVersionUID = 1L;

  /**
   * @param file the file as messages name it ({@code <stdin>} for standard input)
   * @param line 1-based, or 0 when the problem is the file as a whole
   * @param problem what is wrong, without the location
   */
  LintInputException(String file, int line, String problem) {
    super(oneLine(file + (line > 0 ? ":" + line : "") + ": " + problem));
  }

  /**
   * The message with every control, line-breaking and format character as {@code \\uXXXX}: the YAML
   * parser's messages name the character it stopped at, raw, and file names are the repository's;
   * the message must stay one line and must not drive the terminal or CI log it is printed to.
   */
  static String oneLine(String message) {
    StringBuilder out = new StringBuilder(message.length());
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      int type = Character.getType(c);
      if (Character.isISOControl(c)
          || type == Character.LINE_SEPARATOR
          || type == Character.PARAGRAPH_SEPARATOR
          || type == Character.FORMAT) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
