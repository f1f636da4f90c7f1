package dev.routesync.state;

/**
 * Why a state file was not loaded; the label of {@code routesync_state_load_failures_total}. A
 * fixed set: a hostile or broken file cannot mint labels.
 */
public enum LoadFailure {
  /** Reading failed (permissions, an I/O error). */
  IO("io"),
  /**
   * Not the agent's own file: owned by another uid, writable by its group or others, or in a
   * directory its group or others can write to (and not sticky). Anybody could have written it.
   */
  UNTRUSTED("untrusted"),
  /** Something other than a regular file is at the path (a directory, a socket, a device). */
  NOT_A_FILE("not_a_file"),
  /** Zero bytes: a write that never reached the disk, or a file created by hand. */
  EMPTY("empty"),
  /** Shorter than its header says (a torn or cut copy). */
  TRUNCATED("truncated"),
  /** Larger than the cap, or its header announces more than the cap. */
  OVERSIZED("oversized"),
  /** A format version this agent does not read (a newer or older agent wrote it). */
  VERSION("version"),
  /** The checksum does not match: bits changed after the write. */
  CHECKSUM("checksum"),
  /** Written more than the allowed clock skew in the future: a clock that was wrong, or forgery. */
  FUTURE("future"),
  /** Not a routesync state file, trailing bytes, or a body that breaks the format's rules. */
  MALFORMED("malformed");

  private final String label;

  LoadFailure(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
