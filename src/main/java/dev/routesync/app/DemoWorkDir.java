package dev.routesync.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's temporary directory: its kubeconfig and, by default, the socket and its lock file.
 * Removed when the demo stops, after the agent has drained and released the socket and lock.
 */
final class DemoWorkDir implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DemoWorkDir.class);

  private final Path path;

  private DemoWorkDir(Path path) {
    this.path = path;
  }

  /** A fresh directory under {@code java.io.tmpdir}. */
  static DemoWorkDir create() {
    try {
      return new DemoWorkDir(Files.createTempDirectory("routesync-demo"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path path() {
    return path;
  }

  /**
   * Removes the directory and everything in it; a failure is logged, not thrown (we are ending).
   */
  @Override
  public void close() {
    try {
      Files.walkFileTree(
          path,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException error)
                throws IOException {
              if (error != null) {
                throw error;
              }
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (NoSuchFileException e) {
      // Already gone.
    } catch (IOException e) {
      LOG.warn("could not remove the demo's temporary directory {}: {}", path, e.toString());
    }
  }
}
