package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
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
 * One state-of-the-world ADS stream ({@code StreamAggregatedResources}), what gRPC's xDS clients
 * speak. Like a Watch stream, it holds no copy of the table: per type it keeps the subscribed names
 * and the Service version it last sent each one ({@link Subscription}), and every response is built
 * from the <em>current</em> table. With at most one unacknowledged response per type, a slow client
 * costs a few flags, and when it acknowledges it gets the latest state at once.
 *
 * <p>The protocol, per type: a request whose nonce is not the latest response's is stale and
 * ignored; one with {@code error_detail} is a NACK, counted and logged (rate-limited), and what it
 * rejected is not sent again (it is recorded as sent); LDS, RDS and CDS responses list every
 * subscribed resource and go out only when the subscription gains a name (their content depends on
 * the name alone) or, for wildcard CDS, when the cluster list changes; EDS responses carry only the
 * assignments whose Service changed since they were sent. Nothing is sent before the table is
 * trusted: an empty table then would tell every client that nothing exists ({@link
 * AbstractAdsStream}).
 */
final class SotwStream
    extends AbstractAdsStream<DiscoveryRequest, DiscoveryResponse, Subscription> {

  SotwStream(
      Context context,
      GrpcServerResponse<?, DiscoveryResponse> response,
      XdsSources sources,
      XdsObserver observer,
      NackLog nacks,
      Consumer<AdsStream> onClosed) {
    super(context, response, false, sources, observer, nacks, onClosed);
  }

  @Override
  Subscription newSubscription(XdsType type) {
    return new Subscription(type);
  }

  @Override
  void onRequest(DiscoveryRequest request) {
    Optional<Subscription> found = subscriptionOf(request.getNode(), request.getTypeUrl());
    if (found.isEmpty()) {
      return;
    }
    Subscription subscription = found.get();
    if (!subscription.acknowledges(request.getResponseNonce())) {
      return; // answers an older response; the client has one newer in hand
    }
    if (!request.getResponseNonce().isEmpty() && request.hasErrorDetail()) {
      nacked(subscription.type, request.getErrorDetail().getMessage());
    }
    if (request.getResourceNamesCount() > MAX_NAMES) {
      fail(
          GrpcStatus.RESOURCE_EXHAUSTED,
          "more than " + MAX_NAMES + " resource names subscribed for one type");
      return;
    }
    subscription.subscribe(request.getResourceNamesList());
    flush(subscription);
  }

  @Override
  void flush(Subscription subscription, RoutingTable current) {
    switch (subscription.type) {
      case LISTENER, ROUTE -> flushByName(subscription, current);
      case CLUSTER -> flushClusters(subscription, current);
      case ENDPOINT -> flushAssignments(subscription, current);
      default -> throw new IllegalStateException(subscription.type.name());
    }
  }

  // Listeners and routes are pure functions of their names: only a new name sends them again.
  private void flushByName(Subscription subscription, RoutingTable current) {
    SubscribedNames names = subscription.names();
    boolean wildcardUnsent = subscription.wildcard() && subscription.sentWildcard() == 0;
    if (names.unsent().isEmpty() && !wildcardUnsent) {
      return;
    }
    List<Any> resources = new ArrayList<>(names.size());
    for (String name : names.names()) {
      resources.add(
          subscription.type == XdsType.LISTENER
              ? Any.pack(XdsResources.listener(name))
              : Any.pack(XdsResources.route(name)));
      subscription.markSent(name, 0);
    }
    if (subscription.wildcard()) {
      subscription.markWildcardSent(1); // the agent has no listeners of Envoy's kind to list
    }
    send(subscription, current, resources, false);
  }

  // Clusters are pure functions of their names too (a Service with no endpoint there gets an
  // assignment that fails calls, see XdsResources#assignment); only a new name, or for the
  // wildcard a changed cluster list, sends them again.
  private void flushClusters(Subscription subscription, RoutingTable current) {
    SubscribedNames names = subscription.names();
    WildcardClusters.Snapshot all = subscription.wildcard() ? sources.clusters().of(current) : null;
    boolean wildcardChanged = all != null && all.content() != subscription.sentWildcard();
    if (names.unsent().isEmpty() && !wildcardChanged) {
      return;
    }
    boolean pushed = names.unsent().isEmpty();
    List<Any> resources = new ArrayList<>();
    Set<String> listed = Set.of();
    if (all != null) {
      resources.addAll(all.clusters());
      subscription.markWildcardSent(all.content());
      if (names.size() > 0) {
        listed = new HashSet<>(all.names());
      }
    }
    for (String name : names.names()) {
      if (!listed.contains(name)) {
        resources.add(Any.pack(XdsResources.cluster(name)));
      }
      subscription.markSent(name, 0);
    }
    send(subscription, current, resources, pushed);
  }

  // Only the assignments whose Service changed since they were sent: the changed Services come
  // from the table's delta log, so a publish costs what it changed, not what is subscribed.
  private void flushAssignments(Subscription subscription, RoutingTable current) {
    SubscribedNames names = subscription.names();
    Set<String> candidates = names.changedSinceChecked(current);
    boolean pushed = names.unsent().isEmpty();
    List<Any> resources = new ArrayList<>();
    for (String name : candidates) {
      Optional<XdsTarget> target = names.target(name);
      long version = versionOf(target, current);
      Long sent = subscription.sentVersion(name);
      if (sent != null && sent == version) {
        continue;
      }
      resources.add(sources.assignments().assignment(name, target, current));
      subscription.markSent(name, version);
    }
    if (!resources.isEmpty()) {
      send(subscription, current, resources, pushed);
    }
  }

  private static long versionOf(Optional<XdsTarget> target, RoutingTable current) {
    if (target.isEmpty()) {
      return Subscription.INVALID;
    }
    Optional<ServiceEndpoints> service = current.get(target.get().service());
    return service.isPresent() ? service.get().version() : Subscription.ABSENT;
  }

  private void send(
      Subscription subscription, RoutingTable current, List<Any> resources, boolean pushed) {
    String nonce = nextNonce();
    DiscoveryResponse message =
        DiscoveryResponse.newBuilder()
            .setVersionInfo(Long.toString(current.version()))
            .setTypeUrl(subscription.type.typeUrl())
            .setNonce(nonce)
            .addAllResources(resources)
            .build();
    subscription.sentResponse(nonce);
    write(message, subscription.type, resources.size(), current, pushed);
  }
}
