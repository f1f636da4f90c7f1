package dev.routesync.faults;

import dev.routesync.state.StateSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;

/**
 * The state file every agent of a run shares (each a restart of the last), flushed often, and the
 * damage a crash or a bad disk does to it.
 */
final class StateFile {

  private final Path directory;
  private final Path file;

  private StateFile(Path directory) {
    this.directory = directory;
    this.file = directory.resolve("table.bin");
  }

  static StateFile create() {
    try {
      return new StateFile(Files.createTempDirectory("faults-state"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  StateSettings settings() {
    return new StateSettings(Optional.of(file), Duration.ofMillis(100));
  }

  /** When the file was last written, or null when there is none. */
  java.time.Instant modified() {
    try {
      return Files.isRegularFile(file) ? Files.getLastModifiedTime(file).toInstant() : null;
    } catch (IOException e) {
      return null; // being replaced right now
    }
  }

  /** Whether the file was written after {@code instant} (null: never). */
  boolean writtenAfter(java.time.Instant instant) {
    java.time.Instant modified = modified();
    return modified != null && (instant == null || modified.isAfter(instant));
  }

  /**
   * The version the file holds, read as the agent reads it at start, or {@code Long.MIN_VALUE} when
   * it holds none (missing, being replaced, refused). No graceful stop happens during a run, so the
   * completion marker the agent's loader consumes is never there to lose.
   */
  long persistedVersion() {
    dev.routesync.state.StateFile.Loaded loaded =
        new dev.routesync.state.StateFile(file)
            .load(
                java.time.Instant.now(),
                dev.routesync.table.RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
    return loaded instanceof dev.routesync.state.StateFile.Found found
        ? found.persisted().table().version()
        : Long.MIN_VALUE;
  }

  /** Damages the file; with none there yet, puts garbage in its place. */
  void corrupt(Schedule.Corruption how, Random random) throws IOException {
    if (!Files.isRegularFile(file) || Files.size(file) == 0) {
      byte[] garbage = new byte[1 + random.nextInt(256)];
      random.nextBytes(garbage);
      Files.write(file, garbage);
      return;
    }
    byte[] bytes = Files.readAllBytes(file);
    switch (how) {
      case TRUNCATED -> bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
      case BIT_FLIPPED -> {
        int flips = 1 + random.nextInt(3);
        for (int i = 0; i < flips; i++) {
          int at = random.nextInt(bytes.length);
          bytes[at] ^= (byte) (1 << random.nextInt(8));
        }
      }
      case EMPTY -> bytes = new byte[0];
      default -> throw new IllegalStateException(how.toString());
    }
    Files.write(file, bytes, StandardOpenOption.TRUNCATE_EXISTING);
  }

  void delete() throws IOException {
    try (var files = Files.list(directory)) {
      for (Path each : files.toList()) {
        Files.deleteIfExists(each);
      }
    }
    Files.deleteIfExists(directory);
  }
}
