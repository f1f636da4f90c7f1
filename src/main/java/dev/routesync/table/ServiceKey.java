package dev.routesync.table;

import java.util.Objects;

/**
 * Identity of a Kubernetes Service: its namespace and name. Ordered by namespace, then name, so
 * tables iterate deterministically and a namespace is one contiguous range.
 */
public record ServiceKey(String namespace, String name) implements Comparable<ServiceKey> {

  public ServiceKey {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /** Parses {@code namespace/name}; the inverse of {@link #toString()}. */
  public static ServiceKey parse(String text) {
    int slash = text.indexOf('/');
    if (slash <= 0 || slash == text.length() - 1 || text.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException("expected namespace/name, got '" + text + "'");
    }
    return new ServiceKey(text.substring(0, slash), text.substring(slash + 1));
  }

  @Override
  public int compareTo(ServiceKey other) {
    int byNamespace = namespace.compareTo(other.namespace);
    return byNamespace != 0 ? byNamespace : name.compareTo(other.name);
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
