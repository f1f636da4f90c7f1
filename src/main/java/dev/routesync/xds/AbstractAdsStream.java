package dev.routesync.xds;

import dev.routesync.sidecars.Carried;
import dev.routesync.sidecars.Protocol;
import dev.routesync.sidecars.Sidecars;
import dev.routesync.sidecars.SyncState;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.WireFormat;
import io.vertx.grpc.server.GrpcServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both ADS protocols' streams share: the client's identity, one subscription per type, the
 * nudge that coalesces publishes into one look per stream, back-pressure (a full write queue waits
 * for the drain and then looks again), the rule that nothing is sent before the table is trusted or
 * while a type's response is unacknowledged, the write with its metrics, and the ends.
 *
 * <p>Memory and time are bounded by {@link XdsLimits}, not by what the client asks: the names it
 * may subscribe ({@link #admitNames}), and each response, built by a {@link Build} a resource at a
 * time into its encoding ({@link ResponseBytes}), in slices of at most {@link #SLICE_NANOS} of the
 * event loop, with each resource's bytes reserved from the peer's share of pending bytes until the
 * response is written. One build at a time per stream: a flush meanwhile waits for it to end.
 *
 * <p>Threading: everything on the stream's connection context; {@link #nudge} from any thread.
 *
 * @param <Q> the protocol's request message
 * @param <R> its response message
 * @param <S> its per-type subscription
 */
abstract class AbstractAdsStream<Q, R, S extends AdsSubscription> implements AdsStream {

  private static final Logger LOG = LoggerFactory.getLogger(AbstractAdsStream.class);

  /** Names one stream may follow per type; Envoy lists every cluster, so this is generous. */
  static final int MAX_NAMES = 100_000;

  /** How long one slice of a build may hold the event loop. */
  static final long SLICE_NANOS = 2_000_000;

  /** Room kept in a response for its version, type URL and nonce. */
  static final int HEADER_ROOM = 512;

  /** The types' labels in {@link XdsType} order: a stream's sync state is indexed by ordinal. */
  static final List<String> TYPES = Arrays.stream(XdsType.values()).map(XdsType::label).toList();

  // Where the streams no server tracks (tests, benchmarks) keep their state.
  private static final Sidecars UNTRACKED = new Sidecars();

  /** How adding one resource to a response went. */
  enum Fit {
    /** Added, its bytes reserved. */
    ADDED,
    /** The response would pass {@link XdsLimits#maxResponseBytes}: not added. */
    FULL,
    /** The peer's (or everyone's) pending bytes are spent: not added. */
    NO_ROOM
  }

  /** One response being built, a resource per step, on the stream's context. */
  interface Build {
    /** Adds the next resource; false when there is none left or the build stopped. */
    boolean step();

    /** The steps are done: send, fail or wait. */
    void finish();
  }

  final XdsSources sources;
  private final Context context;
  private final GrpcServerResponse<?, R> response;
  private final boolean delta;
  private final XdsObserver observer;
  private final NackLog nacks;
  private final Consumer<AdsStream> onClosed;
  private final AtomicBoolean nudged = new AtomicBoolean();
  private final EnumMap<XdsType, S> subscriptions = new EnumMap<>(XdsType.class);
  private final PeerBudgets budgets;
  private final PeerBudgets.Share share;
  private final boolean protobuf;
  private XdsClient client;
  private Build building;
  private boolean waitingForRoom;
  private long heldBytes;
  private long names;
  private String node = "";
  private long nonces;
  private boolean waitingForDrain;
  private boolean closed;
  // This stream's entry in GET /v1/clients; untracked until the server says otherwise.
  private SyncState sync;

  /**
   * @param delta whether this is the delta protocol, for the streams metric
   * @param onClosed told once, when the stream ends either way
   */
  AbstractAdsStream(
      Context context,
      GrpcServerResponse<?, R> response,
      boolean delta,
      XdsSources sources,
      XdsObserver observer,
      NackLog nacks,
      Object peer,
      boolean protobuf,
      Consumer<AdsStream> onClosed) {
    this.context = context;
    this.budgets = sources.budgets();
    this.share = budgets.join(peer);
    this.protobuf = protobuf;
    this.response = response;
    this.delta = delta;
    this.sources = sources;
    this.observer = observer;
    this.nacks = nacks;
    this.onClosed = onClosed;
    this.sync = UNTRACKED.untracked(delta ? Protocol.DELTA_ADS : Protocol.ADS, TYPES);
  }

  /** Reports this stream's sync state to {@code state}; call before its first request. */
  final void track(SyncState state) {
    this.sync = state;
  }

  /** One request from the client. On the context. */
  abstract void onRequest(Q request);

  /** A new, empty subscription to {@code type}. */
  abstract S newSubscription(XdsType type);

  /**
   * Sends what {@code subscription} lacks of {@code current}, if anything; it may send, or start a
   * {@link #build}.
   */
  abstract void flush(S subscription, RoutingTable current);

  /** Reads back a response this stream assembled, for a client that asked for JSON. */
  abstract R parse(Buffer bytes);

  /**
   * The subscription a request is about, made on first use; empty when the stream has ended or the
   * agent serves no resource of that type. The stream's first request identifies its client.
   */
  final Optional<S> subscriptionOf(Node requester, String typeUrl) {
    if (closed) {
      return Optional.empty();
    }
    if (client == null) {
      client = XdsClient.of(requester.getUserAgentName());
      node = requester.getId();
      sync.named(node);
      observer.streams(client, delta, 1);
    }
    Optional<XdsType> type = XdsType.ofUrl(typeUrl);
    if (type.isEmpty()) {
      // SDS and the like: the agent has none of them to offer; an answer would claim they exist.
      LOG.debug("ignoring an xDS request for a type the agent does not serve");
      return Optional.empty();
    }
    S subscription = subscriptions.get(type.get());
    if (subscription == null) {
      subscription = newSubscription(type.get());
      subscriptions.put(type.get(), subscription);
      observer.subscriptions(type.get(), client, 1);
    }
    return Optional.of(subscription);
  }

  /**
   * The client subscribed {@code count} refused names of {@code type} (multi-cluster names, {@link
   * XdsNames#isClusterset}): counted, and logged rate-limited. They are never served.
   */
  final void refused(XdsType type, int count) {
    if (count > 0) {
      observer.refused(type, count);
      RefusedNameLog.refused(type, client, node, count);
    }
  }

  /** The client rejected the latest response of {@code type}: counted, and logged rate-limited. */
  final void nacked(XdsType type, String message) {
    observer.nack(type);
    sync.nacked(type.ordinal(), message);
    nacks.nacked(type, client, node, message);
  }

  /**
   * The client acknowledged the latest response of {@code type} (its nonce, no error): the stream
   * is caught up when no other type waits for an acknowledgement or a write.
   */
  final void acked(XdsType type) {
    sync.acked(type.ordinal());
    settle();
  }

  // Caught up when nothing is unacknowledged, being built, or waiting for a drain or for room.
  private void settle() {
    if (waitingForDrain || waitingForRoom || building != null) {
      return;
    }
    for (S subscription : subscriptions.values()) {
      if (subscription.pending()) {
        return;
      }
    }
    sync.caughtUp();
  }

  /**
   * The trigger time (epoch millis) of the change that gave {@code service} its {@code version}, or
   * 0 if none is known: what a response carrying it tells the propagation histogram on its ACK.
   */
  final long triggerMillis(ServiceKey service, long version) {
    return sync.triggerMillis(service, version);
  }

  /** A new record of the changes a response carries, for the propagation histogram. */
  final Carried carrying() {
    return sync.carrying();
  }

  @Override
  public final void nudge() {
    if (nudged.compareAndSet(false, true)) {
      context.runOnContext(
          ignored -> {
            nudged.set(false);
            waitingForRoom = false;
            flushAll();
          });
    }
  }

  private void flushAll() {
    for (S subscription : subscriptions.values()) {
      flush(subscription);
    }
    settle(); // a drain or a release that found nothing left to send ends being behind
  }

  /** Sends what {@code subscription} lacks, unless something says to wait. */
  final void flush(S subscription) {
    if (closed
        || waitingForDrain
        || waitingForRoom
        || building != null
        || subscription.pending()
        || !sources.trust().servable()) {
      if (waitingForDrain || waitingForRoom) {
        sync.behindSince(sources.table().current().builtAt().toEpochMilli());
      }
      return;
    }
    if (response.writeQueueFull()) {
      sync.behindSince(sources.table().current().builtAt().toEpochMilli());
      waitingForDrain = true;
      response.drainHandler(
          ignored -> {
            waitingForDrain = false;
            flushAll();
          });
      return;
    }
    flush(subscription, sources.table().current());
  }

  /** The nonce of the next response. */
  final String nextNonce() {
    return Long.toString(++nonces);
  }

  /**
   * Admits a request that would take this stream's subscription of one type from {@code before} to
   * at most {@code after} names: true when the stream and its peer stay within their limits (the
   * names are then counted, {@link #namesNow} makes the count exact), else the stream ends with
   * RESOURCE_EXHAUSTED naming the limit.
   */
  final boolean admitNames(int before, long after) {
    long change = after - before;
    if (change <= 0) {
      return true;
    }
    XdsLimits limits = budgets.limits();
    if (names + change > limits.maxNamesPerStream()) {
      fail(
          GrpcStatus.RESOURCE_EXHAUSTED,
          "more than the limit of "
              + limits.maxNamesPerStream()
              + " resource names subscribed on one stream (max names per stream)");
      return false;
    }
    switch (budgets.addNames(share, change)) {
      case PEER -> {
        fail(
            GrpcStatus.RESOURCE_EXHAUSTED,
            "more than the limit of "
                + limits.maxNamesPerPeer()
                + " resource names subscribed by one peer over all its streams"
                + " (max names per peer)");
        return false;
      }
      case ALL -> {
        fail(
            GrpcStatus.RESOURCE_EXHAUSTED,
            "more than the limit of "
                + limits.maxNames()
                + " resource names subscribed by all clients together (max names)");
        return false;
      }
      case NONE -> {}
    }
    names += change;
    return true;
  }

  /** The stream now follows {@code total} names over all its types: the count made exact. */
  final void namesNow() {
    long total = 0;
    for (S subscription : subscriptions.values()) {
      total += subscription.size();
    }
    budgets.addNames(share, total - names);
    names = total;
    sync.subscribed((int) Math.min(Integer.MAX_VALUE, total));
  }

  /** Starts {@code build}: its first slice now, the rest on later turns of the event loop. */
  final void build(Build build) {
    building = build;
    slice(/* resumed= */ false);
  }

  private void slice(boolean resumed) {
    Build current = building;
    if (closed) {
      building = null;
      return;
    }
    long deadline = System.nanoTime() + SLICE_NANOS;
    int steps = 0;
    boolean more;
    do {
      more = current.step();
    } while (more && ((++steps & 15) != 0 || System.nanoTime() < deadline));
    if (more) {
      context.runOnContext(ignored -> slice(/* resumed= */ true));
      return;
    }
    building = null;
    current.finish();
    if (resumed) {
      flushAll(); // requests that came while it was built waited for it
    }
  }

  /**
   * Adds {@code resource} (its bytes as field {@code field} of the response) to {@code out} if the
   * response and the peer's pending bytes have room for it.
   */
  final Fit fit(ResponseBytes out, int field, int resourceBytes) {
    int bytes = ResponseBytes.fieldSize(field, resourceBytes);
    if (out.size() + bytes > budgets.limits().maxResponseBytes() - HEADER_ROOM) {
      return Fit.FULL;
    }
    if (!budgets.reserveBytes(share, bytes)) {
      return Fit.NO_ROOM;
    }
    heldBytes += bytes;
    out.reserved(bytes);
    return Fit.ADDED;
  }

  /** Gives back the bytes of a response that will not be sent. */
  final void discard(ResponseBytes out) {
    release(out.reserved());
  }

  /**
   * The build stopped for lack of pending bytes, with nothing to send: flushes wait until the
   * peer's (or everyone's) responses are written.
   */
  final void awaitRoom(int bytes) {
    waitingForRoom = true;
    budgets.awaitRoom(this, share, bytes);
  }

  /** The message naming the response limit, for a response that cannot be sent in parts. */
  final String responseTooLarge(XdsType type) {
    return "the "
        + type.label()
        + " response would pass the limit of "
        + budgets.limits().maxResponseBytes()
        + " bytes (max response bytes); subscribe to fewer resources";
  }

  private void release(long bytes) {
    long released = Math.min(bytes, heldBytes);
    if (released > 0) {
      heldBytes -= released;
      budgets.releaseBytes(share, released);
    }
  }

  /**
   * Writes one response of {@code type} assembled in {@code out} from {@code current}, carrying
   * {@code count} resources; {@code pushed} when it answers a table change rather than a request.
   * Its reserved bytes go back when the write completes (or the stream ends).
   */
  final void write(
      ResponseBytes out, XdsType type, int count, RoutingTable current, boolean pushed) {
    write(out, type, count, current, pushed, null);
  }

  /**
   * As above, for a response carrying {@code carried} (null: no change with a trigger time),
   * measured on its ACK.
   */
  final void write(
      ResponseBytes out,
      XdsType type,
      int count,
      RoutingTable current,
      boolean pushed,
      Carried carried) {
    Instant publishedAt = current.builtAt();
    // A push lacks its version from the publish; an answer to a request, from now.
    sync.sent(
        type.ordinal(),
        current.version(),
        carried,
        pushed ? publishedAt.toEpochMilli() : System.currentTimeMillis());
    long reserved = out.reserved();
    Buffer bytes = out.buffer();
    Future<Void> written =
        protobuf
            ? response.writeMessage(GrpcMessage.message("identity", WireFormat.PROTOBUF, bytes))
            : response.write(parse(bytes));
    written.onComplete(
        result -> {
          release(reserved);
          if (result.succeeded()) {
            observer.response(type, count);
            if (pushed) {
              observer.pushed(type, Duration.between(publishedAt, Instant.now()));
            }
          }
        });
  }

  /** The client half-closed its side: end ours with OK. */
  final void clientEnded() {
    endCleanly();
  }

  /** Ends the stream with {@code status}; for requests the agent cannot take. */
  final void fail(GrpcStatus status, String message) {
    if (closed) {
      return;
    }
    closed();
    response.status(status).statusMessage(message).end();
  }

  @Override
  public final void endCleanly() {
    if (!closed) {
      closed();
      response.end();
    }
  }

  @Override
  public final void closed() {
    if (closed) {
      return;
    }
    closed = true;
    building = null;
    release(heldBytes);
    budgets.addNames(share, -names);
    names = 0;
    budgets.forget(this);
    budgets.leave(share);
    sync.closed();
    if (client != null) {
      for (XdsType type : subscriptions.keySet()) {
        observer.subscriptions(type, client, -1);
      }
      observer.streams(client, delta, -1);
    }
    onClosed.accept(this);
  }

  @Override
  public final Context context() {
    return context;
  }
}
