package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One delta (incremental) ADS stream ({@code DeltaAggregatedResources}), what Envoy speaks when
 * configured for it. Where a state-of-the-world CDS response lists every cluster, a delta one
 * carries only the clusters added and the names removed: with thousands of Services, a change to
 * one is one small message, not a resend of all of them.
 *
 * <p>The mapping, per resource: {@code Resource.version} is the Service's table version for EDS,
 * and a hash of the encoded resource for LDS, RDS and CDS, whose content depends on the name alone
 * ({@link ContentVersion}); {@code removed_resources} are the wildcard's clusters that left the
 * table; {@code initial_resource_versions} (a reconnecting client's first request) tells what the
 * client already has, which is not sent again, as {@code resume_from_version} does for a Watch.
 * {@code system_version_info} is the table version, for debugging only.
 *
 * <p>An explicitly subscribed EDS name whose Service left the table gets the assignment that drops
 * every call ({@link XdsResources#assignment}), not a removal, as in state of the world. Envoy's
 * EDS cluster ignores {@code removed_resources} (its delta {@code onConfigUpdate} drops the removed
 * names unread, and an update with no resource only counts {@code update_empty}): a removal would
 * leave it routing to the Service's last endpoints. That assignment makes calls fail at once. A
 * name that names nothing gets the same answer for the same reason, where the protocol would allow
 * a resource-less {@code Resource}.
 *
 * <p>As {@link SotwStream}: per type at most one unacknowledged response; a NACK is counted and
 * logged, and what it rejected stays recorded as the client's (never resent); EDS compares only the
 * Services the table's delta log says changed; nothing is sent before the table is trusted. Unlike
 * state of the world, a request with a stale nonce still changes the subscription (delta requests
 * carry changes, which must not be lost); only its ACK or NACK is ignored.
 */
final class DeltaStream
    extends AbstractAdsStream<DeltaDiscoveryRequest, DeltaDiscoveryResponse, DeltaSubscription> {

  /** EDS version of a name whose Service is not in the table. */
  static final String ABSENT = "absent";

  /**
   * EDS version of a name that names no Service: its assignment (dropping every call) never
   * changes.
   */
  static final String INVALID = "invalid";

  DeltaStream(
      Context context,
      GrpcServerResponse<?, DeltaDiscoveryResponse> response,
      XdsSources sources,
      XdsObserver observer,
      NackLog nacks,
      Consumer<AdsStream> onClosed) {
    super(context, response, true, sources, observer, nacks, onClosed);
  }

  @Override
  DeltaSubscription newSubscription(XdsType type) {
    return new DeltaSubscription(type);
  }

  @Override
  void onRequest(DeltaDiscoveryRequest request) {
    Optional<DeltaSubscription> found = subscriptionOf(request.getNode(), request.getTypeUrl());
    if (found.isEmpty()) {
      return;
    }
    DeltaSubscription subscription = found.get();
    if (subscription.answers(request.getResponseNonce()) && request.hasErrorDetail()) {
      nacked(subscription.type, request.getErrorDetail().getMessage());
    }
    int subscribing = request.getResourceNamesSubscribeCount();
    if (subscribing > MAX_NAMES - subscription.names().size()
        || request.getInitialResourceVersionsCount() > MAX_NAMES) {
      fail(
          GrpcStatus.RESOURCE_EXHAUSTED,
          "more than " + MAX_NAMES + " resource names subscribed for one type");
      return;
    }
    if (subscription.first()) {
      // Only a type's first request may say what the client kept from an earlier stream.
      subscription.start(
          request.getResourceNamesSubscribeList(), request.getInitialResourceVersionsMap());
    } else {
      subscription.subscribe(request.getResourceNamesSubscribeList());
    }
    subscription.unsubscribe(request.getResourceNamesUnsubscribeList());
    flush(subscription);
  }

  @Override
  void flush(DeltaSubscription subscription, RoutingTable current) {
    boolean pushed = subscription.names().unsent().isEmpty() && subscription.answered();
    List<Resource> resources = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    switch (subscription.type) {
      case LISTENER, ROUTE -> byName(subscription, resources);
      case CLUSTER -> clusters(subscription, current, resources, removed);
      case ENDPOINT -> assignments(subscription, current, resources);
      default -> throw new IllegalStateException(subscription.type.name());
    }
    if (subscription.wildcard()
        && subscription.type != XdsType.CLUSTER
        && !subscription.answered()) {
      // The agent lists no listeners (nor routes, nor assignments) of its own: under the wildcard,
      // what else a resuming client says it has does not exist here.
      removed.addAll(subscription.removeUnlisted(Set.of()));
    }
    boolean firstWildcard = subscription.wildcard() && !subscription.answered();
    if (resources.isEmpty() && removed.isEmpty() && !firstWildcard) {
      return;
    }
    // The first answer to a wildcard goes out even empty: Envoy's initialisation waits for it.
    send(subscription, current, resources, removed, pushed);
  }

  // Listeners and routes are pure functions of their names: only a name the client has not got
  // (at this content) is sent.
  private void byName(DeltaSubscription subscription, List<Resource> resources) {
    for (String name : subscription.names().unsent()) {
      Any resource =
          subscription.type == XdsType.LISTENER
              ? Any.pack(XdsResources.listener(name))
              : Any.pack(XdsResources.route(name));
      offer(subscription, name, ContentVersion.of(resource), resource, resources);
    }
    subscription.names().unsent().clear();
  }

  private void clusters(
      DeltaSubscription subscription,
      RoutingTable current,
      List<Resource> resources,
      List<String> removed) {
    if (subscription.wildcard()) {
      WildcardClusters.Snapshot all = sources.clusters().of(current);
      // The list is compared only when it changed: a version that moves endpoints costs nothing.
      if (all.content() != subscription.comparedContent()) {
        List<String> names = all.names();
        for (int i = 0; i < names.size(); i++) {
          // A cluster sent here is current (its content is its name's): only the others are hashed,
          // so a changed list costs a lookup per cluster, not an encoding.
          if (!subscription.sentHere(names.get(i))) {
            Any cluster = all.clusters().get(i);
            offer(subscription, names.get(i), ContentVersion.of(cluster), cluster, resources);
          }
        }
        // Every listed name is now known: any more known names are ones that left the list.
        if (subscription.knownCount() > names.size()) {
          removed.addAll(subscription.removeUnlisted(new HashSet<>(names)));
        }
        subscription.comparedContent(all.content());
      }
    }
    for (String name : subscription.names().unsent()) {
      Any cluster = Any.pack(XdsResources.cluster(name));
      offer(subscription, name, ContentVersion.of(cluster), cluster, resources);
    }
    subscription.names().unsent().clear();
  }

  // Only the assignments whose Service changed since they were compared: the changed Services
  // come from the table's delta log, so a publish costs what it changed, not what is subscribed.
  private void assignments(
      DeltaSubscription subscription, RoutingTable current, List<Resource> resources) {
    SubscribedNames names = subscription.names();
    Set<String> candidates = names.changedSinceChecked(current);
    for (String name : candidates) {
      Optional<XdsTarget> target = names.target(name);
      String version = versionOf(target, current);
      if (!subscription.has(name, version)) {
        Any assignment = sources.assignments().assignment(name, target, current);
        offer(subscription, name, version, assignment, resources);
      }
    }
    names.unsent().clear();
  }

  private static String versionOf(Optional<XdsTarget> target, RoutingTable current) {
    if (target.isEmpty()) {
      return INVALID;
    }
    Optional<ServiceEndpoints> service = current.get(target.get().service());
    return service.isPresent() ? Long.toString(service.get().version()) : ABSENT;
  }

  private static void offer(
      DeltaSubscription subscription,
      String name,
      String version,
      Any resource,
      List<Resource> resources) {
    if (!subscription.has(name, version)) {
      resources.add(
          Resource.newBuilder().setName(name).setVersion(version).setResource(resource).build());
    }
    subscription.sent(name, version);
  }

  private void send(
      DeltaSubscription subscription,
      RoutingTable current,
      List<Resource> resources,
      List<String> removed,
      boolean pushed) {
    String nonce = nextNonce();
    DeltaDiscoveryResponse message =
        DeltaDiscoveryResponse.newBuilder()
            .setSystemVersionInfo(Long.toString(current.version()))
            .setTypeUrl(subscription.type.typeUrl())
            .setNonce(nonce)
            .addAllResources(resources)
            .addAllRemovedResources(removed)
            .build();
    subscription.sentResponse(nonce);
    write(message, subscription.type, resources.size() + removed.size(), current, pushed);
  }
}
