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
    super(file + (line > 0 ? ":" + line : "") + ": " + problem);
  }
}
