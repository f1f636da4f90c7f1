package dev.routesync.logs;

import java.util.Locale;

/** How each log line is written: {@code text} for people, {@code json} for log pipelines. */
public enum LogFormat {
  /** One line of text per event, as {@code logback.xml} configures it. */
  TEXT,
  /** One JSON object per line (logback's {@code JsonEncoder}). */
  JSON;

  /** The default, as the flag's text. */
  public static final String DEFAULT_TEXT = "text";

  /**
   * The format a flag value names, in any case.
   *
   * @throws IllegalArgumentException naming the values that are accepted
   */
  public static LogFormat of(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "text" -> TEXT;
      case "json" -> JSON;
      default ->
          throw new IllegalArgumentException(
              "'" + text + "' is not a log format; use text or json");
    };
  }
}
