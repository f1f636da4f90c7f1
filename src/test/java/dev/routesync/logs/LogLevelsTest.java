package dev.routesync.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Levels set at run time, and the bound on loggers a caller may create. */
class LogLevelsTest {

  @Test
  void aCallerCannotGrowTheLoggerTreeWithoutBound() {
    LogLevels levels = LogLevels.ofProcess().orElseThrow();
    for (int i = 0; i < LogLevels.MAX_NAMED; i++) {
      levels.set("never.logged.name" + i, "debug");
    }
    assertThatThrownBy(() -> levels.set("never.logged.one.more", "debug"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no more than " + LogLevels.MAX_NAMED);
    // A logger the process has already is not new: it can always be changed.
    levels.set("never.logged.name0", "info");
    assertThat(levels.levels()).containsEntry("never.logged.name0", "info");
  }

  @Test
  void namesAndLevelsAreChecked() {
    assertThatThrownBy(() -> LogLevels.check("x".repeat(201), "debug"))
        .hasMessageContaining("not a logger name");
    assertThatThrownBy(() -> LogLevels.check("dev.routesync", "verbose"))
        .hasMessageContaining("'verbose' is not a level");
    LogLevels.check("root", "WARNING");
  }
}
