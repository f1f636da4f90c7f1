package dev.routesync.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** A line as a library logs it, through the library's own logger. */
public final class LibraryLog {

  /** fabric8's HTTP logger, which prints request headers, {@code Authorization} among them. */
  public static final String FABRIC8_HTTP =
      "io.fabric8.kubernetes.client.http.HttpLoggingInterceptor";

  private LibraryLog() {}

  /**
   * Logs {@code line} at WARN through {@code loggerName}, at a level that lets it through whatever
   * an earlier test in this JVM set for its package (the suite shares one logger context); the
   * logger's level is put back after.
   */
  public static void warn(String loggerName, String line) {
    Logger library = (Logger) LoggerFactory.getLogger(loggerName);
    Level before = library.getLevel();
    library.setLevel(Level.WARN);
    try {
      library.warn(line);
    } finally {
      library.setLevel(before);
    }
  }
}
