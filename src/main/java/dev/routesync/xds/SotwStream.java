package dev.routesync.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.routesync.sidecars.Carried;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
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
 *
 * <p>Limits ({@link XdsLimits}): an LDS, RDS or CDS response must list every subscribed resource (a
 * missing one means removed), so one that would pass the response limit cannot be split and ends
 * the stream with RESOURCE_EXHAUSTED; an EDS response carries any subset, so a large one goes out
 * in parts, the next part when the client acknowledges the last.
 */
final class SotwStream
    extends AbstractAdsStream<DiscoveryRequest, DiscoveryResponse, Subscription> {

  private static final int RESOURCES = DiscoveryResponse.RESOURCES_FIELD_NUMBER;

  SotwStream(
      Context context,
      GrpcServerResponse<?, DiscoveryResponse> response,
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
  SotwStream(
      Context context,
      GrpcServerResponse<?, DiscoveryResponse> response,
      XdsSources sources,
      XdsObserver observer,
      NackLog nacks,
      Object peer,
      boolean protobuf,
      Consumer<AdsStream> onClosed) {
    super(context, response, false, sources, observer, nacks, peer, protobuf, onClosed);
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
    if (!request.getResponseNonce().isEmpty()) {
      if (request.hasErrorDetail()) {
        nacked(subscription.type, request.getErrorDetail().getMessage());
      } else {
        acked(subscription.type);
      }
    }
    if (request.getResourceNamesCount() > MAX_NAMES) {
      fail(
          GrpcStatus.RESOURCE_EXHAUSTED,
          "more than " + MAX_NAMES + " resource names subscribed for one type");
      return;
    }
    // Counted before the names are taken: a request over a limit changes nothing.
    if (!admitNames(subscription.size(), request.getResourceNamesCount())) {
      return;
    }
    subscription.subscribe(request.getResourceNamesList());
    refused(subscription.type, subscription.names().takeRefused());
    namesNow();
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

  @Override
  DiscoveryResponse parse(Buffer bytes) {
    try {
      return DiscoveryResponse.parseFrom(bytes.getBytes());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a DiscoveryResponse the agent assembled does not parse", e);
    }
  }

  // Listeners and routes are pure functions of their names: only a new name sends them again.
  private void flushByName(Subscription subscription, RoutingTable current) {
    SubscribedNames names = subscription.names();
    boolean wildcardUnsent = subscription.wildcard() && subscription.sentWildcard() == 0;
    if (names.unsent().isEmpty() && !wildcardUnsent) {
      return;
    }
    List<String> listed = List.copyOf(names.names()); // the names this response answers
    boolean wildcard = subscription.wildcard();
    // A refused name is never served: the response omits it (the client's does-not-exist).
    Iterator<String> each = served(listed).iterator();
    Iterator<Any> resources =
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            return each.hasNext();
          }

          @Override
          public Any next() {
            String name = each.next();
            return subscription.type == XdsType.LISTENER
                ? Any.pack(XdsResources.listener(name))
                : Any.pack(XdsResources.route(name));
          }
        };
    build(
        new FullState(
            subscription,
            current,
            resources,
            false,
            () -> {
              for (String name : listed) {
                if (names.contains(name)) {
                  subscription.markSent(name, 0);
                }
              }
              if (wildcard && subscription.wildcard()) {
                subscription.markWildcardSent(1); // the agent has no listeners of Envoy's kind
              }
            }));
  }

  // Clusters are functions of their names (a Service with no endpoint there gets an assignment
  // that fails calls, see XdsResources#assignment), except that a port of an ExternalName Service
  // is a LOGICAL_DNS cluster: a new name, a changed Service whose cluster changed kind or target
  // (its shape, kept as the name's sent version), or for the wildcard a changed cluster list,
  // sends them again.
  private void flushClusters(Subscription subscription, RoutingTable current) {
    SubscribedNames names = subscription.names();
    WildcardClusters.Snapshot all = subscription.wildcard() ? sources.clusters().of(current) : null;
    boolean wildcardChanged = all != null && all.content() != subscription.sentWildcard();
    boolean pushed = names.unsent().isEmpty();
    for (String name : names.changedSinceChecked(current)) {
      Long sent = subscription.sentVersion(name);
      if (sent != null && sent != XdsResources.clusterShape(name, current)) {
        names.unsent().add(name); // kept until a response carries it, whatever stops this one
      }
    }
    if (names.unsent().isEmpty() && !wildcardChanged) {
      return;
    }
    List<Any> listedClusters = all == null ? List.of() : all.clusters();
    Set<String> listed = all != null && names.size() > 0 ? new HashSet<>(all.names()) : Set.of();
    List<String> explicit = new ArrayList<>();
    for (String name : names.names()) {
      if (!listed.contains(name) && !XdsNames.isClusterset(name)) {
        explicit.add(name);
      }
    }
    List<String> answered = List.copyOf(names.names());
    Iterator<Any> wildcardPart = listedClusters.iterator();
    Iterator<String> explicitPart = explicit.iterator();
    Iterator<Any> resources =
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            return wildcardPart.hasNext() || explicitPart.hasNext();
          }

          @Override
          public Any next() {
            return wildcardPart.hasNext()
                ? wildcardPart.next()
                : Any.pack(XdsResources.cluster(explicitPart.next(), current));
          }
        };
    build(
        new FullState(
            subscription,
            current,
            resources,
            pushed,
            () -> {
              if (all != null && subscription.wildcard()) {
                subscription.markWildcardSent(all.content());
              }
              for (String name : answered) {
                if (names.contains(name)) {
                  subscription.markSent(name, XdsResources.clusterShape(name, current));
                }
              }
            }));
  }

  // Only the assignments whose Service changed since they were sent: the changed Services come
  // from the table's delta log, so a publish costs what it changed, not what is subscribed.
  private void flushAssignments(Subscription subscription, RoutingTable current) {
    SubscribedNames names = subscription.names();
    boolean pushed = names.unsent().isEmpty();
    Set<String> candidates = names.changedSinceChecked(current);
    if (candidates.isEmpty()) {
      return;
    }
    build(new Assignments(subscription, current, candidates.iterator(), pushed));
  }

  private static List<String> served(List<String> names) {
    List<String> served = new ArrayList<>(names.size());
    for (String name : names) {
      if (!XdsNames.isClusterset(name)) {
        served.add(name);
      }
    }
    return served;
  }

  private static long versionOf(Optional<XdsTarget> target, RoutingTable current) {
    if (target.isEmpty()) {
      return Subscription.INVALID;
    }
    Optional<ServiceEndpoints> service = current.get(target.get().service());
    return service.isPresent() ? service.get().version() : Subscription.ABSENT;
  }

  private ResponseBytes start(RoutingTable current) {
    ResponseBytes out = new ResponseBytes();
    out.addString(DiscoveryResponse.VERSION_INFO_FIELD_NUMBER, Long.toString(current.version()));
    return out;
  }

  private void send(
      Subscription subscription, RoutingTable current, ResponseBytes out, boolean pushed) {
    send(subscription, current, out, pushed, null);
  }

  private void send(
      Subscription subscription,
      RoutingTable current,
      ResponseBytes out,
      boolean pushed,
      Carried carried) {
    String nonce = nextNonce();
    out.addString(DiscoveryResponse.TYPE_URL_FIELD_NUMBER, subscription.type.typeUrl());
    out.addString(DiscoveryResponse.NONCE_FIELD_NUMBER, nonce);
    subscription.sentResponse(nonce);
    write(out, subscription.type, out.resources(), current, pushed, carried);
  }

  /**
   * An LDS, RDS or CDS response: every resource or none. Past the response limit the stream ends (a
   * part would tell the client the rest were removed); out of pending bytes it waits.
   */
  private final class FullState implements Build {
    private final Subscription subscription;
    private final RoutingTable current;
    private final Iterator<Any> resources;
    private final boolean pushed;
    private final Runnable sent;
    private final ResponseBytes out;
    private Fit stopped = Fit.ADDED;
    private int lacking;

    FullState(
        Subscription subscription,
        RoutingTable current,
        Iterator<Any> resources,
        boolean pushed,
        Runnable sent) {
      this.subscription = subscription;
      this.current = current;
      this.resources = resources;
      this.pushed = pushed;
      this.sent = sent;
      this.out = start(current);
    }

    @Override
    public boolean step() {
      if (!resources.hasNext()) {
        return false;
      }
      Any resource = resources.next();
      int size = resource.getSerializedSize();
      Fit fit = fit(out, RESOURCES, size);
      if (fit != Fit.ADDED) {
        stopped = fit;
        lacking = size;
        return false;
      }
      out.addResource(RESOURCES, resource.toByteString());
      return resources.hasNext();
    }

    @Override
    public void finish() {
      switch (stopped) {
        case FULL -> {
          discard(out);
          fail(GrpcStatus.RESOURCE_EXHAUSTED, responseTooLarge(subscription.type));
        }
        case NO_ROOM -> {
          discard(out);
          awaitRoom(lacking);
        }
        case ADDED -> {
          sent.run();
          send(subscription, current, out, pushed);
        }
      }
    }
  }

  /**
   * An EDS response of the assignments that changed: as many as fit, the rest left to compare again
   * in the next part.
   */
  private final class Assignments implements Build {
    private final Subscription subscription;
    private final RoutingTable current;
    private final Iterator<String> candidates;
    private final boolean pushed;
    private final ResponseBytes out;
    private Fit stopped = Fit.ADDED;
    private int lacking;
    // The changes this response carries to names sent before, for the propagation histogram.
    private final Carried carried = carrying();

    Assignments(
        Subscription subscription,
        RoutingTable current,
        Iterator<String> candidates,
        boolean pushed) {
      this.subscription = subscription;
      this.current = current;
      this.candidates = candidates;
      this.pushed = pushed;
      this.out = start(current);
    }

    @Override
    public boolean step() {
      if (!candidates.hasNext()) {
        return false;
      }
      SubscribedNames names = subscription.names();
      String name = candidates.next();
      if (!names.contains(name)) {
        return candidates.hasNext(); // unsubscribed while this was built
      }
      if (XdsNames.isClusterset(name)) {
        subscription.markSent(name, Subscription.INVALID); // never served: omitted, once
        return candidates.hasNext();
      }
      Optional<XdsTarget> target = names.target(name);
      long version = versionOf(target, current);
      Long sentVersion = subscription.sentVersion(name);
      if (sentVersion != null && sentVersion == version) {
        return candidates.hasNext();
      }
      Any assignment = sources.assignments().assignment(name, target, current);
      int size = assignment.getSerializedSize();
      Fit fit = fit(out, RESOURCES, size);
      if (fit != Fit.ADDED) {
        stopped = fit;
        lacking = size;
        // This one and the rest are compared again for the next part.
        names.unsent().add(name);
        candidates.forEachRemaining(
            rest -> {
              if (names.contains(rest)) {
                names.unsent().add(rest);
              }
            });
        return false;
      }
      out.addResource(RESOURCES, assignment.toByteString());
      subscription.markSent(name, version);
      if (sentVersion != null && target.isPresent()) {
        // An update of a name the client had: its ACK measures the change's propagation. A first
        // answer measures only when the client asked.
        carried.add(target.get().service(), version);
      }
      return candidates.hasNext();
    }

    @Override
    public void finish() {
      if (out.resources() > 0) {
        send(subscription, current, out, pushed, carried);
        return;
      }
      discard(out);
      if (stopped == Fit.FULL) {
        // One assignment alone passes the limit: no part can carry it.
        fail(GrpcStatus.RESOURCE_EXHAUSTED, responseTooLarge(subscription.type));
      } else if (stopped == Fit.NO_ROOM) {
        awaitRoom(lacking);
      }
    }
  }
}
