package dev.routesync.lint;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code -o}: how findings are printed. */
enum LintFormat {
  /** {@code file:line: RS001 error: message}, for people and editors. */
  TEXT,
  /** One JSON document with every finding (see docs/rollout-safety.md for its schema). */
  JSON,
  /** SARIF 2.1.0, for code-scanning UIs. */
  SARIF,
  /** GitHub Actions workflow commands: annotations on the pull request's files. */
  GITHUB;

  /** Accepts {@code text}, {@code json}, {@code sarif} and {@code github} in any case. */
  static final class Converter implements ITypeConverter<LintFormat> {
    @Override
    public LintFormat convert(String value) {
      try {
        String name = value.trim().toUpperCase(Locale.ROOT);
        // table: the default's name on get, so that -o table works everywhere.
        return LintFormat.valueOf(name.equals("TABLE") ? "TEXT" : name);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            "expected text (or table), json, sarif or github, got '" + value + "'");
      }
    }
  }
}
