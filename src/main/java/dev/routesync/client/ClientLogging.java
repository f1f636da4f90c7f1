package dev.routesync.client;

import ch.qos.logback.classic.Level;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Keeps a client command's stderr to the one line it prints itself. */
final class ClientLogging {

  // Vert.x and Netty log what they see of a broken connection (a stack trace for a stream reset,
  // "First received frame was not SETTINGS", "Connection evicted") before the call fails; the
  // command says what went wrong in one line of its own, so a client command silences them. The
  // agent's own logging is not touched: it runs in another process.
  private static final List<String> LIBRARIES = List.of("io.vertx", "io.netty");

  private ClientLogging() {}

  static void muteLibraries() {
    for (String name : LIBRARIES) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logger) {
        logger.setLevel(Level.OFF);
      }
    }
  }
}
