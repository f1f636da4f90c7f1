package dev.routesync.rules;

/**
 * Which containers {@code FindPort} searches for a named targetPort. Kubernetes 1.32 added the
 * restartable init containers (sidecars), after the regular containers.
 */
public enum PortSearch {
  /** Regular containers only: Kubernetes before 1.32. */
  CONTAINERS,
  /**
   * Regular containers, then init containers with {@code restartPolicy: Always}: 1.32 and later.
   */
  CONTAINERS_AND_SIDECARS;

  public boolean searchesSidecars() {
    return this == CONTAINERS_AND_SIDECARS;
  }
}
