package dev.routesync.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Which Kubernetes resource the agent reads endpoints from. */
public enum Source {
  /** {@code discovery.k8s.io/v1} EndpointSlices: the default, on every supported cluster. */
  ENDPOINTSLICES,
  /** Core {@code v1} Endpoints: for legacy clusters only. */
  ENDPOINTS;

  /** As {@code --source} writes it: {@code endpointslices}. */
  public String flagName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The source {@code text} names, in any case, blanks around ignored.
   *
   * @throws IllegalArgumentException naming the choices
   */
  public static Source of(String text) {
    String wanted = text.trim();
    return Arrays.stream(values())
        .filter(source -> source.flagName().equalsIgnoreCase(wanted))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "expected "
                        + Arrays.stream(values())
                            .map(Source::flagName)
                            .collect(Collectors.joining(" or "))
                        + ", got '"
                        + text
                        + "'"));
  }
}
