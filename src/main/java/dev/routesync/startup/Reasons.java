package dev.routesync.startup;

import dev.routesync.errors.Causes;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Turns an exception into the short reason of a one-line start-up message. */
public final class Reasons {

  private Reasons() {}

  /**
   * The innermost cause's message, first line only ({@code no such file} and {@code permission
   * denied} for the I/O exceptions whose message is only a path); its class name if it has none.
   */
  public static String of(Throwable error) {
    Throwable root = Causes.root(error);
    if (root instanceof NoSuchFileException) {
      return "no such file";
    }
    if (root instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (root instanceof NotDirectoryException) {
      return "not a directory";
    }
    String message = root.getMessage();
    if (message == null || message.isBlank()) {
      return root.getClass().getSimpleName();
    }
    String firstLine = message.strip().lines().findFirst().orElse("");
    return firstLine.contains("Address already in use") ? "address already in use" : firstLine;
  }
}
