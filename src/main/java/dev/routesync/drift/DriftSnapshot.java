package dev.routesync.drift;

import java.util.List;
import java.util.Objects;

/**
 * What the detector last found, immutable: published by one volatile write, read by the servers
 * without locking.
 *
 * @param state whether the detector runs and has seen all it watches
 * @param why for {@link State#OFF}, why (one line for the operator); otherwise empty
 * @param drift every drifting pod, in {@link DriftEntry#ORDER}
 */
public record DriftSnapshot(State state, String why, List<DriftEntry> drift) {

  /** The detector's state, as {@code GET /v1/drift} spells it. */
  public enum State {
    /** Running, and every watch it needs has synced: the list is the detector's verdict. */
    ON("on"),
    /** Running, but a watch has not synced yet: the list says nothing yet. */
    STARTING("starting"),
    /** Not running (turned off, or no node name, or the Endpoints source). */
    OFF("off");

    private final String label;

    State(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  public static final DriftSnapshot STARTING_EMPTY =
      new DriftSnapshot(State.STARTING, "", List.of());

  public DriftSnapshot {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(why, "why");
    drift = List.copyOf(drift);
  }

  /** The snapshot of a detector that does not run, and why. */
  public static DriftSnapshot off(String why) {
    return new DriftSnapshot(State.OFF, why, List.of());
  }
}
