package dev.routesync.logs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * The log levels, read and changed while the process runs (the debug listener's {@code /logging},
 * with Envoy's admin convention). Changing the root's level changes every logger that has no level
 * of its own; a named logger takes the level for itself and what is under it.
 *
 * <p>Logger names come from a client, and logback keeps every logger it is asked for: a name must
 * look like a Java logger's name, and at most {@link #MAX_NAMED} names the process never logged
 * with may be created here, so no caller can grow the logger tree without bound.
 */
public final class LogLevels {

  public static final String ROOT = "root";
  static final int MAX_NAMED = 100;
  private static final Pattern NAME =
      Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
  private static final int MAX_NAME_LENGTH = 200;

  private final LoggerContext context;
  private final Set<String> created = new HashSet<>();

  private LogLevels(LoggerContext context) {
    this.context = context;
  }

  /** The process's levels, or empty when logback is not the SLF4J binding. */
  public static java.util.Optional<LogLevels> ofProcess() {
    return LoggerFactory.getILoggerFactory() instanceof LoggerContext context
        ? java.util.Optional.of(new LogLevels(context))
        : java.util.Optional.empty();
  }

  /** Every logger with a level of its own, by name ({@code root} first in order). */
  public Map<String, String> levels() {
    Map<String, String> levels = new TreeMap<>();
    for (Logger logger : context.getLoggerList()) {
      if (logger.getLevel() != null) {
        String name =
            logger.getName().equals(org.slf4j.Logger.ROOT_LOGGER_NAME) ? ROOT : logger.getName();
        levels.put(name, logger.getLevel().toString().toLowerCase(Locale.ROOT));
      }
    }
    return levels;
  }

  /**
   * Sets {@code logger}'s level ({@code root} for the whole process).
   *
   * @throws IllegalArgumentException naming what is wrong with the name or the level
   */
  public synchronized void set(String logger, String level) {
    check(logger, level);
    Level parsed = level(level);
    String name = logger.trim();
    if (name.equalsIgnoreCase(ROOT)) {
      context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(parsed);
      return;
    }
    if (context.exists(name) == null) {
      if (created.size() >= MAX_NAMED) {
        throw new IllegalArgumentException(
            "no more than " + MAX_NAMED + " loggers that never logged may be given levels");
      }
      created.add(name);
    }
    context.getLogger(name).setLevel(parsed);
  }

  /**
   * Checks a logger name and a level without changing anything.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static void check(String logger, String level) {
    level(level);
    String name = logger == null ? "" : logger.trim();
    if (name.equalsIgnoreCase(ROOT)) {
      return;
    }
    if (name.length() > MAX_NAME_LENGTH || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "'"
              + cut(name)
              + "' is not a logger name (dotted Java identifiers, such as dev.routesync.kube)");
    }
  }

  private static Level level(String text) {
    String value = text == null ? "" : text.trim().toUpperCase(Locale.ROOT);
    return switch (value) {
      case "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF" -> Level.toLevel(value);
      case "WARNING" -> Level.WARN;
      case "CRITICAL" -> Level.ERROR;
      default ->
          throw new IllegalArgumentException(
              "'" + cut(text) + "' is not a level; use trace, debug, info, warn, error or off");
    };
  }

  private static String cut(String text) {
    return text == null ? "" : text.length() <= 60 ? text : text.substring(0, 59) + "…";
  }
}
