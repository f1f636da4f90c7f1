package dev.routesync.bootstrap;

import java.util.Objects;
import java.util.Optional;

/**
 * Where this node is, as an xDS {@code node.locality}: its zone when known. The value is what the
 * node's {@code topology.kubernetes.io/zone} label says, so the same syntax as a label value.
 *
 * @param zone the zone, or empty when it is not known
 */
public record Locality(Optional<String> zone) {

  /** The label the kubelet or the cloud provider sets on every node of a zoned cluster. */
  public static final String ZONE_LABEL = dev.routesync.kube.NodeLabels.ZONE_LABEL;

  private static final int MAX_LABEL_VALUE = 63;

  public Locality {
    Objects.requireNonNull(zone, "zone");
    zone.ifPresent(Locality::requireLabelValue);
  }

  /** No zone. */
  public static Locality unknown() {
    return new Locality(Optional.empty());
  }

  public static Locality zone(String zone) {
    return new Locality(Optional.of(zone));
  }

  /**
   * The API server's label value rule: at most 63 characters, alphanumerics, '-', '_' and '.',
   * beginning and ending with an alphanumeric. A zone outside it can never match an EndpointSlice's
   * zone, so it is refused here rather than silently matching nothing.
   */
  private static void requireLabelValue(String value) {
    boolean valid = !value.isEmpty() && value.length() <= MAX_LABEL_VALUE;
    for (int i = 0; valid && i < value.length(); i++) {
      char c = value.charAt(i);
      boolean alphanumeric =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      boolean edge = i == 0 || i == value.length() - 1;
      valid = alphanumeric || (!edge && (c == '-' || c == '_' || c == '.'));
    }
    if (!valid) {
      throw new IllegalArgumentException(
          "zone '"
              + value
              + "' is not a label value (at most 63 letters, digits, '-', '_' and '.', beginning"
              + " and ending with a letter or digit)");
    }
  }
}
