package dev.routesync.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.LoggerContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Levels set at run time, and the bound on loggers a caller may create. */
class LogLevelsTest {

  @Test
  void aCallerCannotGrowTheLoggerTreeWithoutBound() {
    LogLevels levels = LogLevels.ofProcess().orElseThrow();
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    int before = context.getLoggerList().size();
    // Each name is two loggers the process lacks: "neverN" and "neverN.logged".
    for (int i = 0; i < LogLevels.MAX_CREATED / 2; i++) {
      levels.set("never" + i + ".logged", "debug");
    }
    assertThatThrownBy(() -> levels.set("never.logged.one.more", "debug"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no more than " + LogLevels.MAX_CREATED);
    assertThat(context.getLoggerList().size() - before).isEqualTo(LogLevels.MAX_CREATED);
    // A logger the process has already is not new: it can always be changed.
    levels.set("never0.logged", "info");
    levels.set("never0", "warn");
    assertThat(levels.levels())
        .containsEntry("never0.logged", "info")
        .containsEntry("never0", "warn");
  }

  @Test
  void aRequestPastTheBoundChangesNoLevel() {
    LogLevels levels = LogLevels.ofProcess().orElseThrow();
    levels.set("dev.routesync.logs.LogLevelsTest.kept", "info");
    // 61 loggers each: fitting alone, not together.
    String far = "far" + ".a".repeat(60);
    String fur = "fur" + ".a".repeat(60);

    assertThatThrownBy(
            () ->
                levels.set(
                    List.of(
                        Map.entry("dev.routesync.logs.LogLevelsTest.kept", "debug"),
                        Map.entry(far, "debug"),
                        Map.entry(fur, "debug"))))
        .hasMessageContaining("would create 122");

    assertThat(levels.levels()).containsEntry("dev.routesync.logs.LogLevelsTest.kept", "info");
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertThat(context.exists("far")).isNull();
    assertThat(context.exists("fur")).isNull();
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
