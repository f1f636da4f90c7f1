package dev.routesync.serve;

import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.table.InvalidNameException;
import dev.routesync.table.KubernetesNames;
import dev.routesync.table.ServiceKey;
import java.util.HashSet;
import java.util.Set;

/**
 * What the Registry's decoded request messages ask for, checked: pure functions of the message, so
 * that a fuzz test drives them from bytes without a server ({@code RegistryRequestsFuzzTest}). Each
 * throws {@link InvalidNameException}, whose message {@link RegistryGrpc} sends as
 * INVALID_ARGUMENT, and nothing else.
 */
final class RegistryRequests {

  private RegistryRequests() {}

  /** The Service a Resolve names. */
  static ServiceKey resolveKey(ResolveRequest request) {
    return ServiceKey.of(request.getNamespace(), request.getName());
  }

  /** List's and Watch's namespace: empty for all, else a valid namespace name. */
  static String namespaceFilter(String namespace) {
    return namespace.isEmpty() ? namespace : KubernetesNames.requireNamespace(namespace);
  }

  /** What a Watch follows: its Services, else its namespace, else everything. */
  static WatchFilter watchFilter(WatchRequest request) {
    String namespace = namespaceFilter(request.getNamespace());
    Set<ServiceKey> services = new HashSet<>();
    for (ServiceRef ref : request.getServicesList()) {
      services.add(ServiceKey.of(ref.getNamespace(), ref.getName()));
    }
    return new WatchFilter(namespace, services);
  }
}
