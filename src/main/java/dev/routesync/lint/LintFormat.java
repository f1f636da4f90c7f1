package dev.routesync.lint;

import java.util.Locale;

/**
 * {@code -o}: how findings are printed. The words are the other commands' ({@code text} also
 * spelled {@code table}), plus SARIF and GitHub's annotations; picocli reads them in any case.
 */
enum LintFormat {
  /** {@code file:line: RS001 error: message}, for people and editors. */
  TEXT,
  /** The same as {@link #TEXT}: the default's name on {@code get}. */
  TABLE,
  /** One JSON document with every finding (see docs/rollout-safety.md for its schema). */
  JSON,
  /** The JSON document's fields as YAML. */
  YAML,
  /** {@code service/NAME} for each Service with a finding, once, as {@code kubectl -o name}. */
  NAME,
  /** SARIF 2.1.0, for code-scanning UIs. */
  SARIF,
  /** GitHub Actions workflow commands: annotations on the pull request's files. */
  GITHUB;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
