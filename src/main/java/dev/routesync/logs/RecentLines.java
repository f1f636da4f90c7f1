package dev.routesync.logs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The last log lines the process wrote, kept for the debug listener: the last {@link #PROBLEMS} at
 * WARN or above (the status page's "recent problems") and the last {@link #LINES} of any level that
 * reached the root logger (the debug bundle). Both rings are bounded in lines and each line in
 * characters ({@link LogLine}), so a flood of logging costs the same memory as a quiet day.
 *
 * <p>An appender on the root logger, beside the console one: it sees what the configured levels let
 * through, and a level raised at run time ({@link LogLevels}) fills it with that logger's lines.
 * Each message is kept redacted ({@link LogRedaction}), as the console writes it, so neither {@code
 * /debug/logs} nor the debug bundle holds a credential a library logged.
 */
public final class RecentLines extends AppenderBase<ILoggingEvent> {

  public static final int PROBLEMS = 50;
  public static final int LINES = 500;
  private static final String NAME = "RECENT";

  private final ArrayDeque<LogLine> problems = new ArrayDeque<>(PROBLEMS);
  private final ArrayDeque<LogLine> lines = new ArrayDeque<>(LINES);

  /**
   * The process's instance, attached to logback's root logger on first use; a detached one (not
   * fed) when logback is not the SLF4J binding.
   */
  public static synchronized RecentLines installed() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return new RecentLines();
    }
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    if (root.getAppender(NAME) instanceof RecentLines existing) {
      return existing;
    }
    RecentLines recent = new RecentLines();
    recent.setName(NAME);
    recent.setContext(context);
    recent.start();
    root.addAppender(recent);
    return recent;
  }

  @Override
  protected void append(ILoggingEvent event) {
    LogLine line =
        new LogLine(
            Instant.ofEpochMilli(event.getTimeStamp()),
            event.getLevel().toString(),
            event.getLoggerName(),
            event.getThreadName(),
            message(event));
    synchronized (this) {
      add(lines, line, LINES);
      if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
        add(problems, line, PROBLEMS);
      }
    }
  }

  /** The last lines at WARN or above, oldest first. */
  public synchronized List<LogLine> problems() {
    return List.copyOf(problems);
  }

  /** The last lines of any level, oldest first. */
  public synchronized List<LogLine> lines() {
    return List.copyOf(lines);
  }

  private static void add(ArrayDeque<LogLine> ring, LogLine line, int capacity) {
    if (ring.size() == capacity) {
      ring.removeFirst();
    }
    ring.addLast(line);
  }

  // Redacted before the line is cut, so that a cut never leaves part of a credential behind.
  private static String message(ILoggingEvent event) {
    String message = event.getFormattedMessage();
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown == null) {
      return LogRedaction.redact(message);
    }
    // Only as much as the line can keep: the class and message, not the stack.
    String text = message == null ? "" : message;
    if (text.length() >= LogLine.MAX_MESSAGE) {
      return LogRedaction.redact(text);
    }
    return LogRedaction.redact(
        text + " (" + thrown.getClassName() + ": " + thrown.getMessage() + ")");
  }
}
