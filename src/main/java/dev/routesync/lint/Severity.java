package dev.routesync.lint;

/** How bad a finding is; SARIF and GitHub spell the levels the same way. */
enum Severity {
  ERROR,
  WARNING;

  /** {@code error} or {@code warning}. */
  String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
