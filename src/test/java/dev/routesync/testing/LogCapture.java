package dev.routesync.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Records what one logger (and its children) logs at {@code level} or above while open, whatever
 * the test logback configuration silences; restores the level on close.
 */
public final class LogCapture implements AutoCloseable {

  private final Logger logger;
  private final Level previous;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  public LogCapture(String loggerName, Level level) {
    logger = (Logger) LoggerFactory.getLogger(loggerName);
    previous = logger.getLevel();
    logger.setLevel(level);
    appender.start();
    logger.addAppender(appender);
  }

  /** Everything recorded so far, as {@code LEVEL logger - message}, with any throwable's class. */
  public List<String> lines() {
    return List.copyOf(appender.list).stream()
        .map(
            event ->
                event.getLevel()
                    + " "
                    + event.getLoggerName()
                    + " - "
                    + event.getFormattedMessage()
                    + (event.getThrowableProxy() == null
                        ? ""
                        : " " + event.getThrowableProxy().getClassName()))
        .toList();
  }

  /** The recorded lines at {@code level} or above. */
  public List<String> atLeast(Level level) {
    return List.copyOf(appender.list).stream()
        .filter(event -> event.getLevel().isGreaterOrEqual(level))
        .map(event -> event.getLevel() + " " + event.getLoggerName() + " - " + event.getMessage())
        .toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
    logger.setLevel(previous);
  }
}
