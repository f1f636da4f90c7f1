package dev.routesync.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.routesync.sidecars.Carried;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
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
 *
 * <p>Limits ({@link XdsLimits}): any delta response may carry a subset, so one that would pass the
 * response limit goes out in parts, the next when the client acknowledges the last; names the
 * client claims in {@code initial_resource_versions} count against its names like subscribed ones.
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

  private static final int RESOURCES = DeltaDiscoveryResponse.RESOURCES_FIELD_NUMBER;

  DeltaStream(
      Context context,
      GrpcServerResponse<?, DeltaDiscoveryResponse> response,
      XdsSources sources,
      XdsObserver observer,
      NackLog nacks,
      Consumer<AdsStream> onClosed) {
    this(context, response, sources, observer, nacks, new Object(), true, onClosed);
  }

  /**
   * @param peer who opened the stream, for its share of the limits
   * @param protobuf whether the client speaks protobuf (else JSON)
   */
  DeltaStream(
      Context context,
      GrpcServerResponse<?, DeltaDiscoveryResponse> response,
      XdsSources sources,
      XdsObserver observer,
      NackLog nacks,
      Object peer,
      boolean protobuf,
      Consumer<AdsStream> onClosed) {
    super(context, response, true, sources, observer, nacks, peer, protobuf, onClosed);
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
    if (subscription.answers(request.getResponseNonce())) {
      if (request.hasErrorDetail()) {
        nacked(subscription.type, request.getErrorDetail().getMessage());
      } else {
        acked(subscription.type);
      }
    }
    int subscribing = request.getResourceNamesSubscribeCount();
    if (subscribing > MAX_NAMES - subscription.names().size()
        || request.getInitialResourceVersionsCount() > MAX_NAMES) {
      fail(
          GrpcStatus.RESOURCE_EXHAUSTED,
          "more than " + MAX_NAMES + " resource names subscribed for one type");
      return;
    }
    long claimed = subscription.first() ? request.getInitialResourceVersionsCount() : 0;
    if (!admitNames(subscription.size(), (long) subscription.size() + subscribing + claimed)) {
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
    refused(subscription.type, subscription.names().takeRefused());
    namesNow();
    flush(subscription);
  }

  @Override
  DeltaDiscoveryResponse parse(Buffer bytes) {
    try {
      return DeltaDiscoveryResponse.parseFrom(bytes.getBytes());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(
          "a DeltaDiscoveryResponse the agent assembled does not parse", e);
    }
  }

  @Override
  void flush(DeltaSubscription subscription, RoutingTable current) {
    boolean pushed = subscription.names().unsent().isEmpty() && subscription.answered();
    WildcardClusters.Snapshot all = null;
    if (subscription.type == XdsType.CLUSTER && subscription.wildcard()) {
      WildcardClusters.Snapshot latest = sources.clusters().of(current);
      // The list is compared only when it changed: a version that moves endpoints costs nothing.
      if (latest.content() != subscription.comparedContent()) {
        all = latest;
      }
    }
    boolean firstWildcard = subscription.wildcard() && !subscription.answered();
    // Clusters follow the table too: a port of an ExternalName Service is a LOGICAL_DNS cluster,
    // so a changed Service's names are offered again (sent only when their content changed).
    boolean followsTable =
        subscription.type == XdsType.ENDPOINT || subscription.type == XdsType.CLUSTER;
    if (all == null && subscription.names().unsent().isEmpty() && !firstWildcard && !followsTable) {
      return;
    }
    Iterator<String> names =
        followsTable
            ? subscription.names().changedSinceChecked(current).iterator()
            : List.copyOf(subscription.names().unsent()).iterator();
    if (subscription.type == XdsType.ENDPOINT) {
      subscription.names().unsent().clear(); // every one is a candidate now
      if (!names.hasNext() && !firstWildcard) {
        return;
      }
    }
    build(new Changes(subscription, current, all, names, pushed));
  }

  private static String versionOf(Optional<XdsTarget> target, RoutingTable current) {
    if (target.isEmpty()) {
      return INVALID;
    }
    Optional<ServiceEndpoints> service = current.get(target.get().service());
    return service.isPresent() ? Long.toString(service.get().version()) : ABSENT;
  }

  /**
   * One delta response: first, for a wildcard CDS whose list changed, the listed clusters the
   * client lacks (a cluster sent here is current, its content being its name's: only the others are
   * hashed, so a changed list costs a lookup per cluster, not an encoding); then the names not
   * answered yet (for EDS, those whose Service changed). As many as fit; the rest stay to answer in
   * the next part.
   */
  private final class Changes implements Build {
    private final DeltaSubscription subscription;
    private final RoutingTable current;
    private final WildcardClusters.Snapshot all;
    private final Iterator<String> names;
    private final boolean pushed;
    private final ResponseBytes out = new ResponseBytes();
    private final List<String> removed = new ArrayList<>();
    private int listed;
    private Fit stopped = Fit.ADDED;
    private int lacking;
    // The changes this response carries to names sent before, for the propagation histogram.
    private final Carried carried = carrying();

    Changes(
        DeltaSubscription subscription,
        RoutingTable current,
        WildcardClusters.Snapshot all,
        Iterator<String> names,
        boolean pushed) {
      this.subscription = subscription;
      this.current = current;
      this.all = all;
      this.names = names;
      this.pushed = pushed;
    }

    @Override
    public boolean step() {
      if (all != null && listed < all.names().size()) {
        String name = all.names().get(listed);
        if (!subscription.sentHere(name)) {
          Any cluster = all.clusters().get(listed);
          if (!offer(name, ContentVersion.of(cluster), cluster)) {
            return false; // the list is compared again, from the start, for the next part
          }
        }
        listed++;
        if (listed == all.names().size()) {
          // Every listed name is now known: any more known names are ones that left the list.
          if (subscription.knownCount() > all.names().size()) {
            removed.addAll(subscription.removeUnlisted(new HashSet<>(all.names())));
          }
          subscription.comparedContent(all.content());
        }
        return true;
      }
      if (!names.hasNext()) {
        return false;
      }
      String name = names.next();
      SubscribedNames subscribed = subscription.names();
      if (!subscribed.contains(name)) {
        return names.hasNext(); // unsubscribed while this was built
      }
      if (XdsNames.isClusterset(name)) {
        subscribed.unsent().remove(name); // never served (the client's does-not-exist)
        return names.hasNext();
      }
      boolean added =
          switch (subscription.type) {
            case LISTENER -> offerByName(name, Any.pack(XdsResources.listener(name)));
            case ROUTE -> offerByName(name, Any.pack(XdsResources.route(name)));
            case CLUSTER -> offerByName(name, Any.pack(XdsResources.cluster(name, current)));
            case ENDPOINT -> offerAssignment(name);
          };
      if (!added) {
        subscribed.unsent().add(name);
        names.forEachRemaining(
            rest -> {
              if (subscribed.contains(rest)) {
                subscribed.unsent().add(rest);
              }
            });
        return false;
      }
      return names.hasNext();
    }

    // Listeners, routes and clusters are pure functions of their names: only a name the client
    // has not got (at this content) is sent.
    private boolean offerByName(String name, Any resource) {
      if (!offer(name, ContentVersion.of(resource), resource)) {
        return false;
      }
      subscription.names().unsent().remove(name);
      return true;
    }

    private boolean offerAssignment(String name) {
      Optional<XdsTarget> target = subscription.names().target(name);
      String version = versionOf(target, current);
      if (subscription.has(name, version)) {
        return true;
      }
      boolean update = subscription.sentHere(name);
      if (!offer(name, version, sources.assignments().assignment(name, target, current))) {
        return false;
      }
      if (update && target.isPresent()) {
        Optional<ServiceEndpoints> service = current.get(target.get().service());
        if (service.isPresent()) {
          carried.add(service.get().key(), service.get().version());
        }
      }
      return true;
    }

    /** Adds {@code resource} unless the client has it; false when it did not fit. */
    private boolean offer(String name, String version, Any resource) {
      if (!subscription.has(name, version)) {
        Resource wrapped =
            Resource.newBuilder().setName(name).setVersion(version).setResource(resource).build();
        int size = wrapped.getSerializedSize();
        Fit fit = fit(out, RESOURCES, size);
        if (fit != Fit.ADDED) {
          stopped = fit;
          lacking = size;
          return false;
        }
        out.addResource(RESOURCES, wrapped.toByteString());
      }
      subscription.sent(name, version);
      return true;
    }

    @Override
    public void finish() {
      if (subscription.wildcard()
          && subscription.type != XdsType.CLUSTER
          && !subscription.answered()) {
        // The agent lists no listeners (nor routes, nor assignments) of its own: under the
        // wildcard, what else a resuming client says it has does not exist here.
        removed.addAll(subscription.removeUnlisted(Set.of()));
      }
      boolean firstWildcard = subscription.wildcard() && !subscription.answered();
      if (out.resources() == 0 && removed.isEmpty() && !firstWildcard) {
        discard(out);
        if (stopped == Fit.FULL) {
          // One resource alone passes the limit: no part can carry it.
          fail(GrpcStatus.RESOURCE_EXHAUSTED, responseTooLarge(subscription.type));
        } else if (stopped == Fit.NO_ROOM) {
          awaitRoom(lacking);
        }
        return;
      }
      // The first answer to a wildcard goes out even empty: Envoy's initialisation waits for it.
      String nonce = nextNonce();
      out.addString(
          DeltaDiscoveryResponse.SYSTEM_VERSION_INFO_FIELD_NUMBER,
          Long.toString(current.version()));
      out.addString(DeltaDiscoveryResponse.TYPE_URL_FIELD_NUMBER, subscription.type.typeUrl());
      out.addString(DeltaDiscoveryResponse.NONCE_FIELD_NUMBER, nonce);
      // Removals are names the client has, bounded by its names limit: never held back.
      for (String name : removed) {
        out.addString(DeltaDiscoveryResponse.REMOVED_RESOURCES_FIELD_NUMBER, name);
      }
      subscription.sentResponse(nonce);
      write(out, subscription.type, out.resources() + removed.size(), current, pushed, carried);
    }
  }
}
