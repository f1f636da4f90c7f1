package dev.routesync.drift;

import dev.routesync.units.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * Whether the drift detector runs, and how long a pod may be missing from endpoints for no reason
 * the specs explain before it is reported.
 *
 * @param enabled {@code --drift-detector}; the detector also needs a node name and EndpointSlices
 * @param grace {@code --drift-grace}: a {@code NotInEndpoints} pod is reported only this long after
 *     the latest of its Ready transition, its Service's last change and the informers' sync, so the
 *     controller's normal propagation never alarms
 */
public record DriftSettings(boolean enabled, Duration grace) {

  // Defaults as the flags write them: AgentOptions' defaultValue strings read these.
  public static final boolean DEFAULT_ENABLED = true;
  public static final String DEFAULT_GRACE_TEXT = "30s";
  public static final Duration DEFAULT_GRACE = Durations.parse(DEFAULT_GRACE_TEXT);

  // The sane range of --drift-grace (docs/configuration.md says the same). 0 reports
  // NotInEndpoints at the next evaluation, which only tests want.
  public static final Duration MIN_GRACE = Duration.ZERO;
  public static final Duration MAX_GRACE = Duration.ofHours(1);

  public static final DriftSettings DEFAULT = new DriftSettings(DEFAULT_ENABLED, DEFAULT_GRACE);

  public DriftSettings {
    Objects.requireNonNull(grace, "grace");
    Durations.requireWithin("--drift-grace", grace, MIN_GRACE, MAX_GRACE);
  }
}
