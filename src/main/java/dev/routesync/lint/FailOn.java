package dev.routesync.lint;

import java.util.Locale;

/** {@code --fail-on}: the least severity that makes lint exit 1; picocli reads it in any case. */
enum FailOn {
  ERROR,
  WARNING,
  NONE;

  boolean fails(Severity severity) {
    return switch (this) {
      case ERROR -> severity == Severity.ERROR;
      case WARNING -> true;
      case NONE -> false;
    };
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
