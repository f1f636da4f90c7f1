package dev.routesync.xds;

import dev.routesync.table.RoutingTable;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
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

  final XdsSources sources;
  private final Context context;
  private final GrpcServerResponse<?, R> response;
  private final boolean delta;
  private final XdsObserver observer;
  private final NackLog nacks;
  private final Consumer<AdsStream> onClosed;
  private final AtomicBoolean nudged = new AtomicBoolean();
  private final EnumMap<XdsType, S> subscriptions = new EnumMap<>(XdsType.class);
  private XdsClient client;
  private String node = "";
  private long nonces;
  private boolean waitingForDrain;
  private boolean closed;

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
      Consumer<AdsStream> onClosed) {
    this.context = context;
    this.response = response;
    this.delta = delta;
    this.sources = sources;
    this.observer = observer;
    this.nacks = nacks;
    this.onClosed = onClosed;
  }

  /** One request from the client. On the context. */
  abstract void onRequest(Q request);

  /** A new, empty subscription to {@code type}. */
  abstract S newSubscription(XdsType type);

  /** Sends what {@code subscription} lacks of {@code current}, if anything; it may send. */
  abstract void flush(S subscription, RoutingTable current);

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

  /** The client rejected the latest response of {@code type}: counted, and logged rate-limited. */
  final void nacked(XdsType type, String message) {
    observer.nack(type);
    nacks.nacked(type, client, node, message);
  }

  @Override
  public final void nudge() {
    if (nudged.compareAndSet(false, true)) {
      context.runOnContext(
          ignored -> {
            nudged.set(false);
            flushAll();
          });
    }
  }

  private void flushAll() {
    for (S subscription : subscriptions.values()) {
      flush(subscription);
    }
  }

  /** Sends what {@code subscription} lacks, unless something says to wait. */
  final void flush(S subscription) {
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
    flush(subscription, sources.table().current());
  }

  /** The nonce of the next response. */
  final String nextNonce() {
    return Long.toString(++nonces);
  }

  /**
   * Writes one response of {@code type} built from {@code current}, carrying {@code count}
   * resources; {@code pushed} when it answers a table change rather than a request.
   */
  final void write(R message, XdsType type, int count, RoutingTable current, boolean pushed) {
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
