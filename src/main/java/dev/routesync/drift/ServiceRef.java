package dev.routesync.drift;

/** A Service by namespace and name, as the detector keys its state. */
record ServiceRef(String namespace, String name) {

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
