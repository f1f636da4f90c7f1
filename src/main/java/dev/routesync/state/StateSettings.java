package dev.routesync.state;

import dev.routesync.units.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the agent persists its table, and how often.
 *
 * @param file {@code --state-file}: the table's file; empty turns persistence off ({@code
 *     --state-file ""})
 * @param flush {@code --state-flush}: the file is written at most once per this, after a publish
 */
public record StateSettings(Optional<Path> file, Duration flush) {

  // Defaults as the flags write them: AgentOptions' defaultValue strings read these. The file
  // lives on the agent's hostPath (it survives container restarts and upgrades, not node reboots),
  // in a directory the sidecars do not mount.
  public static final String DEFAULT_FILE_TEXT = "/var/run/routesync/state/table.bin";
  public static final String DEFAULT_FLUSH_TEXT = "1s";
  public static final Duration DEFAULT_FLUSH = Durations.parse(DEFAULT_FLUSH_TEXT);

  // The sane range of --state-flush (docs/configuration.md says the same).
  public static final Duration MIN_FLUSH = Duration.ofMillis(100);
  public static final Duration MAX_FLUSH = Duration.ofMinutes(5);

  /** Persistence off: what configurations built in code (tests, tools) start with. */
  public static final StateSettings OFF = new StateSettings(Optional.empty(), DEFAULT_FLUSH);

  public StateSettings {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(flush, "flush");
    Durations.requireWithin("--state-flush", flush, MIN_FLUSH, MAX_FLUSH);
    file.ifPresent(
        path -> {
          if (path.getFileName() == null) {
            throw new IllegalArgumentException("--state-file must name a file, got '" + path + "'");
          }
        });
  }

  /** The production default: {@link #DEFAULT_FILE_TEXT}, flushed every {@link #DEFAULT_FLUSH}. */
  public static StateSettings defaults() {
    return new StateSettings(Optional.of(Path.of(DEFAULT_FILE_TEXT)), DEFAULT_FLUSH);
  }

  public boolean enabled() {
    return file.isPresent();
  }
}
