package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>Threading: everything on the stream's connection context; {@link #nudge} from any thread.
 */
final class DeltaStream implements AdsStream {

  private static final Logger LOG = LoggerFactory.getLogger(DeltaStream.class);

  /** EDS version of a name whose Service is not in the table. */
  static final String ABSENT = "absent";

  /**
   * EDS version of a name that names no Service: its assignment (dropping every call) never
   * changes.
   */
  static final String INVALID = "invalid";

  private final Context context;
  private final GrpcServerResponse<?, DeltaDiscoveryResponse> response;
  private final XdsSources sources;
  private final XdsObserver observer;
  private final NackLog nacks;
  private final Runnable onClosed;
  private final AtomicBoolean nudged = new AtomicBoolean();
  private final EnumMap<XdsType, DeltaSubscription> subscriptions = new EnumMap<>(XdsType.class);
  private XdsClient client;
  private String node = "";
  private long nonces;
  private boolean waitingForDrain;
  private boolean closed;

  DeltaStream(
      Context context,
      GrpcServerResponse<?, DeltaDiscoveryResponse> response,
      XdsSources sources,
      XdsObserver observer,
      NackLog nacks,
      Runnable onClosed) {
    this.context = context;
    this.response = response;
    this.sources = sources;
    this.observer = observer;
    this.nacks = nacks;
    this.onClosed = onClosed;
  }

  /** One request from the client. On the context. */
  void onRequest(DeltaDiscoveryRequest request) {
    if (closed) {
      return;
    }
    if (client == null) {
      client = XdsClient.of(request.getNode().getUserAgentName());
      node = request.getNode().getId();
      observer.streams(client, true, 1);
    }
    Optional<XdsType> type = XdsType.ofUrl(request.getTypeUrl());
    if (type.isEmpty()) {
      // SDS and the like: the agent has none of them to offer.
      LOG.debug("ignoring a delta xDS request for a type the agent does not serve");
      return;
    }
    DeltaSubscription subscription = subscriptions.get(type.get());
    if (subscription == null) {
      subscription = new DeltaSubscription(type.get());
      subscriptions.put(type.get(), subscription);
      observer.subscriptions(type.get(), client, 1);
    }
    if (subscription.answers(request.getResponseNonce()) && request.hasErrorDetail()) {
      observer.nack(type.get());
      nacks.nacked(type.get(), client, node, request.getErrorDetail().getMessage());
    }
    int subscribing = request.getResourceNamesSubscribeCount();
    if (subscribing > SotwStream.MAX_NAMES - subscription.names().size()
        || request.getInitialResourceVersionsCount() > SotwStream.MAX_NAMES) {
      fail(
          GrpcStatus.RESOURCE_EXHAUSTED,
          "more than " + SotwStream.MAX_NAMES + " resource names subscribed for one type");
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
  public void nudge() {
    if (nudged.compareAndSet(false, true)) {
      context.runOnContext(
          ignored -> {
            nudged.set(false);
            flushAll();
          });
    }
  }

  private void flushAll() {
    for (DeltaSubscription subscription : subscriptions.values()) {
      flush(subscription);
    }
  }

  private void flush(DeltaSubscription subscription) {
    if (closed || waitingForDrain || subscription.pending() || !sources.trust().servable()) {
      return;
    }
    if (response.writeQueueFull()) {
      waitingForDrain = true;
      response.drainHandler(
          ignored -> {
            waitingForDrain = false;
            flushAll();
          });
      return;
    }
    RoutingTable current = sources.table().current();
    boolean pushed = subscription.unsent().isEmpty() && subscription.answered();
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
    for (String name : subscription.unsent()) {
      Any resource =
          subscription.type == XdsType.LISTENER
              ? Any.pack(XdsResources.listener(name))
              : Any.pack(XdsResources.route(name));
      offer(subscription, name, ContentVersion.of(resource), resource, resources);
    }
    subscription.unsent().clear();
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
    for (String name : subscription.unsent()) {
      Any cluster = Any.pack(XdsResources.cluster(name));
      offer(subscription, name, ContentVersion.of(cluster), cluster, resources);
    }
    subscription.unsent().clear();
  }

  // Only the assignments whose Service changed since they were compared: the changed Services
  // come from the table's delta log, so a publish costs what it changed, not what is subscribed.
  private void assignments(
      DeltaSubscription subscription, RoutingTable current, List<Resource> resources) {
    Set<String> candidates = new LinkedHashSet<>(subscription.unsent());
    long checkedAt = subscription.checkedAt();
    Optional<Set<ServiceKey>> changed =
        checkedAt < 0 ? Optional.empty() : current.changedSince(checkedAt);
    if (checkedAt == current.version()) {
      changed = Optional.of(Set.of());
    }
    if (changed.isPresent()) {
      for (ServiceKey key : changed.get()) {
        candidates.addAll(subscription.namesOf(key));
      }
    } else {
      candidates.addAll(subscription.names()); // too old for the log: compare every name
    }
    subscription.checkedAt(current.version());
    for (String name : candidates) {
      Optional<XdsTarget> target = subscription.target(name);
      String version = versionOf(target, current);
      if (!subscription.has(name, version)) {
        Any assignment = sources.assignments().assignment(name, target, current);
        offer(subscription, name, version, assignment, resources);
      }
    }
    subscription.unsent().clear();
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
    String nonce = Long.toString(++nonces);
    DeltaDiscoveryResponse message =
        DeltaDiscoveryResponse.newBuilder()
            .setSystemVersionInfo(Long.toString(current.version()))
            .setTypeUrl(subscription.type.typeUrl())
            .setNonce(nonce)
            .addAllResources(resources)
            .addAllRemovedResources(removed)
            .build();
    subscription.sentResponse(nonce);
    XdsType type = subscription.type;
    int count = resources.size() + removed.size();
    Instant publishedAt = current.builtAt();
    response
        .write(message)
        .onSuccess(
            written -> {
              observer.response(type, count);
              if (pushed) {
                observer.pushed(type, Duration.between(publishedAt, Instant.now()));
              }
            });
  }

  /** The client half-closed its side: end ours with OK. */
  void clientEnded() {
    endCleanly();
  }

  /** Ends the stream with {@code status}; for requests the agent cannot take. */
  void fail(GrpcStatus status, String message) {
    if (closed) {
      return;
    }
    closed();
    response.status(status).statusMessage(message).end();
  }

  @Override
  public void endCleanly() {
    if (!closed) {
      closed();
      response.end();
    }
  }

  @Override
  public void closed() {
    if (closed) {
      return;
    }
    closed = true;
    if (client != null) {
      for (XdsType type : subscriptions.keySet()) {
        observer.subscriptions(type, client, -1);
      }
      observer.streams(client, true, -1);
    }
    onClosed.run();
  }

  @Override
  public Context context() {
    return context;
  }
}
