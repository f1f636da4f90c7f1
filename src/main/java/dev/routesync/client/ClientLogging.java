package dev.routesync.client;

import ch.qos.logback.classic.Level;
import org.slf4j.LoggerFactory;

/** Keeps a client command's stderr to the one line it prints itself. */
final class ClientLogging {

  // Vert.x logs a stack trace here when the gRPC client resets a stream it cannot use, as it does
  // against a server without the gRPC API; the command already says so in one line.
  private static final String STREAM_RESETS = "io.vertx.core.http.impl.HttpClientResponseImpl";

  private ClientLogging() {}

  static void muteStreamResets() {
    if (LoggerFactory.getLogger(STREAM_RESETS) instanceof ch.qos.logback.classic.Logger logger) {
      logger.setLevel(Level.OFF);
    }
  }
}
