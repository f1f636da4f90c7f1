package dev.routesync.observe;

import dev.routesync.serve.CloseReason;
import dev.routesync.serve.DebugRefusal;
import dev.routesync.serve.GrpcMethod;
import dev.routesync.serve.Listener;
import dev.routesync.serve.ServeObserver;
import dev.routesync.serve.SocketRefusal;
import dev.routesync.serve.WatchLag;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.grpc.common.GrpcStatus;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntSupplier;

/**
 * Serving's meters: gRPC calls by method and status, the Watch streams, and the connections (by
 * listener; the socket's also by peer uid, {@link UidConnections}).
 */
final class ServeMetrics implements ServeObserver {

  /** The {@code status} of a call the client abandoned before it could be answered. */
  static final String ABORTED_BY_CLIENT = "ABORTED_BY_CLIENT";

  private static final int METHODS = GrpcMethod.values().length;
  // One slot per status code, and one more for ABORTED_BY_CLIENT.
  private static final int STATUSES = GrpcStatus.values().length + 1;
  private static final int ABORTED = STATUSES - 1;

  private final MeterRegistry registry;
  // By method and status: 3 x 18 series, most of which never happen, so each is registered at its
  // first call rather than up front (every scrape would carry the zeros). Two threads racing to
  // fill a slot register the same meter id, and the registry hands both the same counter.
  private final AtomicReferenceArray<Counter> calls =
      new AtomicReferenceArray<>(METHODS * STATUSES);
  private final AtomicInteger watchSubscribers = new AtomicInteger();
  private final Counter watchMessages;
  private final Counter watchServicesSent;
  private final Map<WatchLag, Counter> watchLagged;
  private final Map<Listener, Counter> connectionsRejected;
  private final Map<Listener, Map<CloseReason, Counter>> connectionsClosed =
      new EnumMap<>(Listener.class);
  private final UidConnections byUid;
  private final UidRefusals refusals;
  private final Map<Listener, Counter> bodyTimeouts;
  private final Map<DebugRefusal, Counter> debugRefused;

  ServeMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("routesync.watch.subscribers", watchSubscribers, AtomicInteger::get)
        .description("Open gRPC Watch streams")
        .register(registry);
    this.watchMessages =
        Counter.builder("routesync.watch.messages")
            .description("WatchEvent messages sent to subscribers")
            .register(registry);
    this.watchServicesSent =
        Counter.builder("routesync.watch.services.sent")
            .description("Services (upserted or removed) carried by WatchEvent messages")
            .register(registry);
    this.watchLagged =
        Meters.perConstant(
            registry,
            "routesync.watch.lagged",
            "Watch messages that caught a slow subscriber up, by how",
            WatchLag.class,
            "how",
            WatchLag::label);
    this.connectionsRejected =
        Meters.perConstant(
            registry,
            "routesync.connections.rejected",
            "Connections closed at accept because the listener was at its cap",
            Listener.class,
            "listener",
            Listener::label);
    for (Listener listener : Listener.values()) {
      Map<CloseReason, Counter> byReason = new EnumMap<>(CloseReason.class);
      for (CloseReason reason : CloseReason.values()) {
        byReason.put(
            reason,
            Counter.builder("routesync.connections.closed")
                .description("Connections the agent closed, by listener and reason")
                .tag("listener", listener.label())
                .tag("reason", reason.label())
                .register(registry));
      }
      connectionsClosed.put(listener, byReason);
    }
    this.byUid = new UidConnections(registry);
    this.refusals = new UidRefusals(registry);
    this.bodyTimeouts =
        Meters.perConstant(
            registry,
            "routesync.requests.body.timeouts",
            "Requests cancelled because their body had not arrived within --body-timeout",
            Listener.class,
            "listener",
            Listener::label);
    this.debugRefused =
        Meters.perConstant(
            registry,
            "routesync.debug.requests.refused",
            "Requests the debug listener refused: a Host that is not loopback, or a change from"
                + " another origin",
            DebugRefusal.class,
            "reason",
            DebugRefusal::label);
  }

  @Override
  public void grpcCall(GrpcMethod method, GrpcStatus status) {
    call(method, status.ordinal(), status.name()).increment();
  }

  @Override
  public void grpcAbortedByClient(GrpcMethod method) {
    call(method, ABORTED, ABORTED_BY_CLIENT).increment();
  }

  private Counter call(GrpcMethod method, int statusSlot, String status) {
    int slot = method.ordinal() * STATUSES + statusSlot;
    Counter counter = calls.get(slot);
    if (counter == null) {
      counter =
          Counter.builder("routesync.grpc.requests")
              .description("gRPC calls by method and final status")
              .tag("method", method.label())
              .tag("status", status)
              .register(registry);
      calls.set(slot, counter);
    }
    return counter;
  }

  @Override
  public void watchSubscribers(int delta) {
    watchSubscribers.addAndGet(delta);
  }

  @Override
  public void watchMessage(int services) {
    watchMessages.increment();
    watchServicesSent.increment(services);
  }

  @Override
  public void watchLagged(WatchLag how) {
    watchLagged.get(how).increment();
  }

  @Override
  public void connectionsOpen(Listener listener, IntSupplier open) {
    Gauge.builder("routesync.connections.open", open, IntSupplier::getAsInt)
        .description("Connections open, by listener")
        .tag("listener", listener.label())
        .strongReference(true)
        .register(registry);
  }

  @Override
  public void connectionRejected(Listener listener) {
    connectionsRejected.get(listener).increment();
  }

  @Override
  public void connectionClosed(Listener listener, CloseReason reason) {
    connectionsClosed.get(listener).get(reason).increment();
  }

  @Override
  public void socketConnections(long uid, int delta) {
    byUid.changed(uid, delta);
  }

  @Override
  public void socketRefused(long uid, SocketRefusal why) {
    refusals.refused(uid, why);
  }

  @Override
  public void bodyTimedOut(Listener listener) {
    bodyTimeouts.get(listener).increment();
  }

  @Override
  public void debugRequestRefused(DebugRefusal why) {
    debugRefused.get(why).increment();
  }
}
