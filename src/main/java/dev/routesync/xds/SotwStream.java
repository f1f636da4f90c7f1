package dev.routesync.xds;

import com.google.protobuf.Any;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
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
 * trusted: an empty table then would tell every client that nothing exists.
 *
 * <p>Threading: everything on the stream's connection context; {@link #nudge} from any thread.
 */
final class SotwStream implements AdsStream {

  private static final Logger LOG = LoggerFactory.getLogger(SotwStream.class);

  /** Names one stream may follow per type; Envoy lists every cluster, so this is generous. */
  static final int MAX_NAMES = 100_000;

  private final Context context;
  private final GrpcServerResponse<DiscoveryRequest, DiscoveryResponse> response;
  private final XdsSources sources;
  private final XdsObserver observer;
  private final NackLog nacks;
  private final Runnable onClosed;
  private final AtomicBoolean nudged = new AtomicBoolean();
  private final EnumMap<XdsType, Subscription> subscriptions = new EnumMap<>(XdsType.class);
  private XdsClient client;
  private String node = "";
  private long nonces;
  private boolean waitingForDrain;
  private boolean closed;

  SotwStream(
      Context context,
      GrpcServerResponse<DiscoveryRequest, DiscoveryResponse> response,
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
  void onRequest(DiscoveryRequest request) {
    if (closed) {
      return;
    }
    if (client == null) {
      client = XdsClient.of(request.getNode().getUserAgentName());
      node = request.getNode().getId();
      observer.streams(client, false, 1);
    }
    Optional<XdsType> type = XdsType.ofUrl(request.getTypeUrl());
    if (type.isEmpty()) {
      // SDS and the like: the agent has none of them to offer; an answer would claim they exist.
      LOG.debug("ignoring an xDS request for a type the agent does not serve");
      return;
    }
    Subscription subscription = subscriptions.get(type.get());
    if (subscription == null) {
      subscription = new Subscription(type.get());
      subscriptions.put(type.get(), subscription);
      observer.subscriptions(type.get(), client, 1);
    }
    if (!subscription.acknowledges(request.getResponseNonce())) {
      return; // answers an older response; the client has one newer in hand
    }
    if (!request.getResponseNonce().isEmpty() && request.hasErrorDetail()) {
      observer.nack(type.get());
      nacks.nacked(type.get(), client, node, request.getErrorDetail().getMessage());
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
    for (Subscription subscription : subscriptions.values()) {
      flush(subscription);
    }
  }

  private void flush(Subscription subscription) {
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
    switch (subscription.type) {
      case LISTENER, ROUTE -> flushByName(subscription, current);
      case CLUSTER -> flushClusters(subscription, current);
      case ENDPOINT -> flushAssignments(subscription, current);
      default -> throw new IllegalStateException(subscription.type.name());
    }
  }

  // Listeners and routes are pure functions of their names: only a new name sends them again.
  private void flushByName(Subscription subscription, RoutingTable current) {
    boolean wildcardUnsent = subscription.wildcard() && subscription.sentWildcard() == 0;
    if (subscription.unsent().isEmpty() && !wildcardUnsent) {
      return;
    }
    List<Any> resources = new ArrayList<>(subscription.size());
    for (String name : subscription.names()) {
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

  // A cluster exists while its Service has the port the name selects: a Service deleted (or never
  // there) is a cluster absent from the response, which clients take as deleted and fail its calls
  // at once. (grpc-java keeps the last endpoints of a cluster whose assignment goes empty.)
  private void flushClusters(Subscription subscription, RoutingTable current) {
    WildcardClusters.Snapshot all = subscription.wildcard() ? sources.clusters().of(current) : null;
    boolean changed = all != null && all.content() != subscription.sentWildcard();
    boolean pushed = subscription.unsent().isEmpty();
    for (String name : candidates(subscription, current)) {
      Long sent = subscription.sentVersion(name);
      if (sent == null || sent != existence(subscription.target(name), current)) {
        changed = true;
        break;
      }
    }
    if (!changed) {
      return;
    }
    List<Any> resources = new ArrayList<>();
    Set<String> listed = Set.of();
    if (all != null) {
      resources.addAll(all.clusters());
      subscription.markWildcardSent(all.content());
      if (!subscription.names().isEmpty()) {
        listed = new HashSet<>(all.names());
      }
    }
    for (String name : subscription.names()) {
      long exists = existence(subscription.target(name), current);
      if (exists == EXISTS && !listed.contains(name)) {
        resources.add(Any.pack(XdsResources.cluster(name)));
      }
      subscription.markSent(name, exists);
    }
    send(subscription, current, resources, pushed);
  }

  private static final long EXISTS = 1;

  private static long existence(Optional<XdsTarget> target, RoutingTable current) {
    return XdsResources.clusterExists(target, current) ? EXISTS : Subscription.ABSENT;
  }

  /**
   * The names whose resource may differ from what was sent: those never sent, and those of the
   * Services changed since the subscription was last checked (every name when that is older than
   * the table's delta log). Marks the subscription checked at {@code current}.
   */
  private static Set<String> candidates(Subscription subscription, RoutingTable current) {
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
      candidates.addAll(subscription.names());
    }
    subscription.checkedAt(current.version());
    return candidates;
  }

  // Only the assignments whose Service changed since they were sent: the changed Services come
  // from the table's delta log, so a publish costs what it changed, not what is subscribed.
  private void flushAssignments(Subscription subscription, RoutingTable current) {
    Set<String> candidates = candidates(subscription, current);
    boolean pushed = subscription.unsent().isEmpty();
    List<Any> resources = new ArrayList<>();
    for (String name : candidates) {
      Optional<XdsTarget> target = subscription.target(name);
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
    String nonce = Long.toString(++nonces);
    DiscoveryResponse message =
        DiscoveryResponse.newBuilder()
            .setVersionInfo(Long.toString(current.version()))
            .setTypeUrl(subscription.type.typeUrl())
            .setNonce(nonce)
            .addAllResources(resources)
            .build();
    subscription.sentResponse(nonce);
    XdsType type = subscription.type;
    int count = resources.size();
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
      observer.streams(client, false, -1);
    }
    onClosed.run();
  }

  @Override
  public Context context() {
    return context;
  }

  /** The types this stream follows, for tests. */
  Set<XdsType> types() {
    return subscriptions.keySet();
  }
}
