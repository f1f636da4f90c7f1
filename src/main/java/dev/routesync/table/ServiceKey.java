package dev.routesync.table;

import java.util.Objects;

/**
 * Identity of a Kubernetes Service: its namespace and name. Ordered by namespace, then name, so
 * tables iterate deterministically and a namespace is one contiguous range.
 *
 * <p>Two ways in. The record constructor is the trusted path: it checks only for nulls, for keys
 * built from objects the API server already validated (the translation in {@code kube/}, once per
 * object on every update), so that hot path pays nothing for the rule. {@link #of} and {@link
 * #parse} are for names a client gave (the APIs, the command line): they apply {@link
 * KubernetesNames}' rule and throw {@link InvalidNameException}, whose message each edge passes on.
 *
 * <p>One caveat on trust: an EndpointSlice names its Service in the {@code
 * kubernetes.io/service-name} label, which the API server checks only as a label value (it may hold
 * capitals, '_' or '.'). The key is kept as written; a client can list it but never look it up by
 * name, since lookups go through {@link #of}.
 */
public record ServiceKey(String namespace, String name) implements Comparable<ServiceKey> {

  public ServiceKey {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /**
   * The key for a namespace and a Service name a client gave; the namespace is checked first.
   *
   * @throws InvalidNameException if either breaks Kubernetes' rule
   */
  public static ServiceKey of(String namespace, String name) {
    return new ServiceKey(
        KubernetesNames.requireNamespace(namespace), KubernetesNames.requireServiceName(name));
  }

  /**
   * Parses {@code namespace/name}, as {@link #of}; the inverse of {@link #toString()}.
   *
   * @throws InvalidNameException if there is not exactly one '/', or a part breaks the rule
   */
  public static ServiceKey parse(String text) {
    int slash = text.indexOf('/');
    if (slash < 0 || slash != text.lastIndexOf('/')) {
      throw new InvalidNameException(
          "Service", text, "must be namespace/name, two names joined by one '/'");
    }
    return of(text.substring(0, slash), text.substring(slash + 1));
  }

  /**
   * Written out, with the same meaning as a record's generated one. The generated equals is an
   * invokedynamic chain of method handles that C2 did not inline where the table and its delta's
   * sets call it: it was 6.5% of a flush's samples at n = 100k (FlushCostBenchmark under
   * async-profiler). The identity test comes first because the table is always asked with the very
   * key instance it holds (the watch store's).
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof ServiceKey other
        && name.equals(other.name)
        && namespace.equals(other.namespace);
  }

  /**
   * The record's formula (31 * namespace's hash + name's hash), written out for the same reason.
   */
  @Override
  public int hashCode() {
    return 31 * namespace.hashCode() + name.hashCode();
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
