package dev.routesync.rules;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes minor version, for the rules that changed between releases.
 *
 * @param major 1 for every release so far
 * @param minor the minor release
 */
public record KubeVersion(int major, int minor) implements Comparable<KubeVersion> {

  /** The release whose EndpointSlice controller resolves named ports of sidecar containers. */
  public static final KubeVersion SIDECAR_PORTS = new KubeVersion(1, 32);

  // "1.32", "v1.32.3", "1.32+" (GKE and EKS report a trailing "+"), "v1.33.1-gke.100".
  private static final Pattern TEXT = Pattern.compile("v?(\\d{1,3})\\.(\\d{1,3})(?:[.+\\-].*)?");

  public KubeVersion {
    if (major < 1 || minor < 0) {
      throw new IllegalArgumentException("not a Kubernetes version: " + major + "." + minor);
    }
  }

  /**
   * Parses {@code 1.32}, {@code v1.32.3} or {@code 1.32+}.
   *
   * @throws IllegalArgumentException naming the text when it is none of these
   */
  public static KubeVersion parse(String text) {
    Matcher m = text == null ? null : TEXT.matcher(text.trim());
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(
          "not a Kubernetes version (want MAJOR.MINOR, e.g. 1.32): " + text);
    }
    return new KubeVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
  }

  /** Which containers this release's controller searches for a named targetPort. */
  public PortSearch portSearch() {
    return compareTo(SIDECAR_PORTS) >= 0
        ? PortSearch.CONTAINERS_AND_SIDECARS
        : PortSearch.CONTAINERS;
  }

  @Override
  public int compareTo(KubeVersion other) {
    return major != other.major
        ? Integer.compare(major, other.major)
        : Integer.compare(minor, other.minor);
  }

  @Override
  public String toString() {
    return major + "." + minor;
  }
}
