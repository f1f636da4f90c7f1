package dev.routesync.logs;

import java.time.Instant;

/**
 * One log event as the debug listener shows it: its message cut to {@link #MAX_MESSAGE} characters
 * (an exception's class and message appended), so a ring of them has a bounded size whatever was
 * logged.
 */
public record LogLine(Instant time, String level, String logger, String thread, String message) {

  public static final int MAX_MESSAGE = 1_000;
  static final int MAX_NAME = 200;

  public LogLine {
    logger = cut(logger, MAX_NAME);
    thread = cut(thread, MAX_NAME);
    message = cut(message, MAX_MESSAGE);
  }

  private static String cut(String text, int max) {
    if (text == null) {
      return "";
    }
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }
}
