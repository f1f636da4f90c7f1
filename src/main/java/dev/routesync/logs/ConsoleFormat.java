package dev.routesync.logs;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link LogFormat} to the root logger's console appenders, once, at start: {@code
 * logback.xml} keeps the text format (and its filters and levels), so only the encoder changes. The
 * JSON encoder writes redacted, as {@code logback.xml}'s does ({@link RedactingEncoder}).
 */
public final class ConsoleFormat {

  private ConsoleFormat() {}

  /**
   * Switches every stream appender of the root logger to {@code format}; text leaves {@code
   * logback.xml}'s encoder as it is. Does nothing when logback is not the SLF4J binding.
   */
  public static void apply(LogFormat format) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      apply(format, context);
    }
  }

  /** As {@link #apply(LogFormat)}, to {@code context}'s root logger. */
  static void apply(LogFormat format, LoggerContext context) {
    if (format == LogFormat.TEXT) {
      return;
    }
    for (OutputStreamAppender<ILoggingEvent> appender : streamAppenders(context)) {
      JsonEncoder json = json();
      json.setContext(context);
      RedactingEncoder encoder = RedactingEncoder.around(json);
      encoder.start();
      // An appender takes a new encoder only while stopped; the few events logged in between are
      // from no other thread yet (this runs before the agent starts).
      appender.stop();
      appender.setEncoder(encoder);
      appender.start();
    }
  }

  /**
   * logback's encoder with what a log pipeline indexes: time, level, logger, thread, the message
   * both as its template ({@code message}: the same for every line of a kind, so it groups them)
   * and as text ({@code formattedMessage}), MDC and the key-value pairs the agent adds to its
   * important lines, and any exception. The arguments, sequence number and the context's properties
   * would only double the line.
   */
  static JsonEncoder json() {
    JsonEncoder encoder = new JsonEncoder();
    encoder.setWithSequenceNumber(false);
    encoder.setWithNanoseconds(false);
    encoder.setWithContext(false);
    encoder.setWithArguments(false);
    encoder.setWithFormattedMessage(true);
    return encoder;
  }

  private static List<OutputStreamAppender<ILoggingEvent>> streamAppenders(LoggerContext context) {
    List<OutputStreamAppender<ILoggingEvent>> found = new ArrayList<>();
    Iterator<Appender<ILoggingEvent>> appenders =
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).iteratorForAppenders();
    while (appenders.hasNext()) {
      if (appenders.next() instanceof OutputStreamAppender<ILoggingEvent> stream) {
        found.add(stream);
      }
    }
    return found;
  }
}
