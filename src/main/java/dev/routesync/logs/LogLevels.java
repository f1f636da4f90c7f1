package dev.routesync.logs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.LoggerNameUtil;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
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
 * <p>Logger names come from a client, and logback keeps every logger it is asked for, and one for
 * each dotted prefix of its name too ({@code a.b.c} is three): a name must look like a Java
 * logger's name, and at most {@link #MAX_CREATED} loggers the process does not have may be created
 * here, counted as logback creates them, so no caller can grow the logger tree without bound.
 *
 * <p>A request's pairs apply together or not at all: every name, level and the bound are checked
 * before any level changes.
 */
public final class LogLevels {

  public static final String ROOT = "root";

  /** The most loggers that levels set here may create, each dotted prefix counted. */
  public static final int MAX_CREATED = 100;

  private static final Pattern NAME =
      Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
  private static final int MAX_NAME_LENGTH = 200;

  private final LoggerContext context;
  private int created;

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
  public void set(String logger, String level) {
    set(List.of(Map.entry(logger == null ? "" : logger, level == null ? "" : level)));
  }

  /**
   * Sets each logger's level ({@code root} for the whole process), in order, or none: a pair that
   * is wrong, or loggers past the bound, change nothing at all.
   *
   * @throws IllegalArgumentException naming what is wrong with a name or a level, or the bound
   */
  public synchronized void set(List<Map.Entry<String, String>> pairs) {
    Map<String, Level> levels = new LinkedHashMap<>();
    Set<String> creates = new HashSet<>();
    for (Map.Entry<String, String> pair : pairs) {
      check(pair.getKey(), pair.getValue());
      String name = pair.getKey().trim();
      name = name.equalsIgnoreCase(ROOT) ? org.slf4j.Logger.ROOT_LOGGER_NAME : name;
      levels.put(name, level(pair.getValue()));
      if (!name.equals(org.slf4j.Logger.ROOT_LOGGER_NAME)) {
        missing(name, creates);
      }
    }
    if (created + creates.size() > MAX_CREATED) {
      throw new IllegalArgumentException(
          "no more than "
              + MAX_CREATED
              + " loggers the agent does not have may be created (each dotted part of a name is"
              + " one): this request would create "
              + creates.size()
              + ", "
              + (MAX_CREATED - created)
              + " are left; nothing was changed");
    }
    created += creates.size();
    levels.forEach((name, level) -> context.getLogger(name).setLevel(level));
  }

  /**
   * Adds to {@code into} each logger that {@code getLogger(name)} would create, as logback does.
   */
  private void missing(String name, Set<String> into) {
    int from = 0;
    while (true) {
      int separator = LoggerNameUtil.getSeparatorIndexOf(name, from);
      String prefix = separator < 0 ? name : name.substring(0, separator);
      if (context.exists(prefix) == null) {
        into.add(prefix);
      }
      if (separator < 0) {
        return;
      }
      from = separator + 1;
    }
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
