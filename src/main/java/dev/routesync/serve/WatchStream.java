package dev.routesync.serve;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.sidecars.Carried;
import dev.routesync.sidecars.SyncState;
import dev.routesync.streams.HubStream;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.WireFormat;
import io.vertx.grpc.server.GrpcServerResponse;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One open Watch stream. Its whole state is the table version it has brought its subscriber to:
 * every message is built from the <em>current</em> table, listing the services that changed since
 * that version (from the table's delta log). So a slow subscriber costs no memory, and when it
 * catches up it receives the latest state of every service that changed, in one message, never a
 * stale or partial one. One that falls out of the delta log gets a full snapshot instead.
 *
 * <p>Until the table is trusted ({@link TableTrust}) the stream is held open without a message: the
 * empty table of a fresh start would tell the subscriber to drop every route. The first message is
 * built only once the trust is raised, from the table then current, so it reflects the trusted
 * table or a newer one; a version published while the stream waited is in it, not lost.
 *
 * <p>Every message says whether the table it brings is stale ({@link StaleSignal}). When that flips
 * without a new version, the signal's nudge sends a message with the version already sent and no
 * Services, carrying only the new staleness.
 *
 * <p>Each Service in a message is encoded once per version for all streams ({@link
 * EncodedServices}); a stream assembles its message from those bytes ({@link WatchMessage}), so
 * another subscriber costs a copy and a write, not an encode.
 *
 * <p>Backpressure comes from HTTP/2 flow control: while the write queue is full nothing is built;
 * the drain handler resumes. Threading: everything runs on the stream's connection context; {@link
 * #nudge} may be called from any thread.
 */
final class WatchStream implements HubStream, WatchBytes.Waiter {

  private final Context context;
  private final GrpcServerResponse<?, WatchEvent> response;
  private final WatchFilter filter;
  private final TableView table;
  private final TableTrust trust;
  private final StaleSignal staleSignal;
  private final ServeObserver observer;
  private final WatchSupply supply;
  private final boolean protobuf;
  // This stream's entry in GET /v1/clients: one type, "services".
  private final SyncState sync;
  private final AtomicBoolean nudged = new AtomicBoolean();
  private long resumeFrom;
  private boolean started;
  private long sentVersion;
  // The staleness the subscriber was last told (meaningful once started).
  private boolean sentStale;
  private boolean waitingForDrain;
  // The next message does not fit the Watch streams' pending budget: woken by a release.
  private boolean waitingForRoom;
  private boolean closed;
  // Messages handed to Vert.x and not yet written out, and who waits for that count to reach 0.
  private int unwritten;
  private boolean ending;
  private Runnable onFlushed;

  WatchStream(
      Context context,
      GrpcServerResponse<?, WatchEvent> response,
      WatchFilter filter,
      TableView table,
      TableTrust trust,
      StaleSignal staleSignal,
      ServeObserver observer,
      WatchSupply supply,
      WireFormat format,
      SyncState sync) {
    this.sync = sync;
    this.context = context;
    this.response = response;
    this.filter = filter;
    this.table = table;
    this.trust = trust;
    this.staleSignal = staleSignal;
    this.observer = observer;
    this.supply = supply;
    this.protobuf = format == WireFormat.PROTOBUF;
  }

  /**
   * Opens the stream, on its context: sends the first message now if the table is trusted, else
   * when a nudge finds it trusted. Register the stream for nudges <em>before</em> calling this, so
   * a trust raised in between cannot be missed.
   */
  void open(long resumeFrom) {
    this.resumeFrom = resumeFrom;
    flush();
  }

  /**
   * The first message: only what changed since {@code resumeFrom}, or a full snapshot. Not started
   * when it does not fit the pending budget: the room coming back starts it again.
   */
  private void start() {
    RoutingTable current = table.current();
    Optional<Set<ServiceKey>> changed =
        resumeFrom > 0 ? current.changedSince(resumeFrom) : Optional.empty();
    if (changed.isPresent()) {
      sentVersion = resumeFrom;
      started = send(current, changed.get(), /* always= */ true);
    } else {
      started = sendSnapshot(current);
    }
  }

  /** The pending budget has room again. Any thread. */
  @Override
  public void roomFreed() {
    context.runOnContext(
        ignored -> {
          waitingForRoom = false;
          flush();
        });
  }

  /** A new table version was published. Any thread; coalesces to one task on the context. */
  @Override
  public void nudge() {
    if (nudged.compareAndSet(false, true)) {
      context.runOnContext(
          ignored -> {
            nudged.set(false);
            flush();
          });
    }
  }

  private void flush() {
    if (closed || ending || waitingForDrain || waitingForRoom) {
      return;
    }
    if (!started) {
      // The trust first, then the table: once trusted, current() is that table or newer.
      if (trust.servable()) {
        start();
      }
      return;
    }
    if (response.writeQueueFull()) {
      // The subscriber is not reading: what is published now waits for it.
      sync.behindSince(table.current().builtAt().toEpochMilli());
      waitingForDrain = true;
      response.drainHandler(
          ignored -> {
            waitingForDrain = false;
            flush();
          });
      return;
    }
    RoutingTable current = table.current();
    if (unwritten == 0) {
      sync.caughtUp(); // nothing waits in the queues: only what this flush sends can
    }
    if (current.version() == sentVersion) {
      if (staleSignal.stale() != sentStale) {
        // Staleness alone changed: say so at the version the subscriber already has.
        WatchMessage event = event(current);
        write(event.toBytes(), event, 0, current, null);
      }
      return;
    }
    Optional<Set<ServiceKey>> changed = current.changedSince(sentVersion);
    if (changed.isEmpty()) {
      observer.watchLagged(WatchLag.RESET);
      sendSnapshot(current);
      return;
    }
    if (current.version() - sentVersion > 1) {
      observer.watchLagged(WatchLag.COALESCED);
    }
    send(current, changed.get(), /* always= */ false);
  }

  /** Whether it was sent (or had nothing to send); false when it waits for the budget. */
  private boolean send(RoutingTable current, Set<ServiceKey> changed, boolean always) {
    WatchMessage event = event(current);
    // The oldest trigger time among the changes this message carries (a resumed stream's first
    // message too: the subscriber had the versions before).
    Carried carried = sync.carrying();
    for (ServiceKey key : changed) {
      if (!filter.matches(key)) {
        continue;
      }
      Optional<ServiceEndpoints> service = current.get(key);
      if (service.isPresent()) {
        event.upsert(supply.encodings().encoded(service.get()));
        carried.add(key, service.get().version());
      } else {
        event.remove(key);
      }
    }
    // Versions that touch nothing this stream follows are skipped silently, unless the staleness
    // the subscriber knows is no longer true.
    if ((event.services() > 0 || always || event.stale() != sentStale)
        && !write(event.toBytes(), event, event.services(), current, carried)) {
      return false;
    }
    sentVersion = current.version();
    return true;
  }

  /**
   * Every Service the stream follows. The all-namespaces one, what nearly every sidecar asks for,
   * is assembled once per version and shared ({@link SharedSnapshots}). Whether it was sent; false
   * when it waits for the budget.
   */
  private boolean sendSnapshot(RoutingTable current) {
    WatchMessage event = event(current).reset();
    boolean everything = filter.services().isEmpty() && filter.namespace().isEmpty();
    byte[] bytes =
        everything
            ? supply
                .snapshots()
                .snapshot(
                    current.version(),
                    event.stale(),
                    staleSignal.syncedAt().map(Instant::toEpochMilli).orElse(0L),
                    () -> assemble(event, current))
            : assemble(event, current);
    // A shared snapshot was assembled in another stream's event: count from the table.
    int services = everything ? current.serviceCount() : event.services();
    if (!write(bytes, event, services, current, null)) {
      return false;
    }
    if (filter.services().isEmpty()) {
      sync.subscribed(services); // a namespace or everything: what the snapshot held
    }
    sentVersion = current.version();
    return true;
  }

  private byte[] assemble(WatchMessage event, RoutingTable current) {
    for (ServiceEndpoints service : filter.snapshot(current)) {
      event.upsert(supply.encodings().encoded(service));
    }
    return event.toBytes();
  }

  /** An event at {@code current}'s version, with the table's staleness as of now. */
  private WatchMessage event(RoutingTable current) {
    return new WatchMessage(current.version(), staleSignal.stale(), staleSignal.syncedAt());
  }

  // The event goes out as the bytes it was assembled into (the Services' shared encodings copied
  // in). A client that asked for another wire format (JSON) gets it decoded and re-encoded by
  // Vert.x, the one path that still pays an encode per stream.
  //
  // A Watch has no acknowledgement: a message counts as acknowledged when Vert.x completes its
  // write (HTTP/2 flow control let it out, so the subscriber reads), and the stream is caught up
  // when nothing of it is left unwritten.
  //
  // The bytes are reserved from the Watch streams' pending budget until the write completes; a
  // message that does not fit is not written, and the stream waits for room (false).
  private boolean write(
      byte[] message, WatchMessage event, int services, RoutingTable current, Carried carried) {
    int size = message.length;
    if (!supply.bytes().reserve(size)) {
      waitingForRoom = true;
      supply.bytes().awaitRoom(this, size);
      return false;
    }
    sentStale = event.stale();
    unwritten++;
    long version = event.version();
    sync.sent(0, version, 0, Math.max(current.builtAt().toEpochMilli(), 1));
    Buffer bytes = Buffer.buffer(message);
    Future<Void> written;
    if (protobuf) {
      written = response.writeMessage(GrpcMessage.message("identity", WireFormat.PROTOBUF, bytes));
    } else {
      written = response.write(parse(bytes));
    }
    written.onComplete(
        result -> {
          supply.bytes().release(size);
          unwritten--;
          if (result.succeeded()) {
            sync.delivered(0, version, carried);
            if (unwritten == 0 && !waitingForDrain) {
              sync.caughtUp();
            }
          }
          Runnable waiting = onFlushed;
          if (flushed() && waiting != null) {
            onFlushed = null;
            waiting.run();
          }
        });
    observer.watchMessage(services);
    return true;
  }

  private static WatchEvent parse(Buffer bytes) {
    try {
      return WatchEvent.parseFrom(bytes.getBytes());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a WatchEvent the agent assembled does not parse", e);
    }
  }

  /**
   * Sends nothing more, and runs {@code then} once every message handed to Vert.x is written out
   * (at once if none is pending); never if the stream closes first.
   */
  void stopAndWhenFlushed(Runnable then) {
    ending = true;
    if (closed) {
      return;
    }
    if (flushed()) {
      then.run();
    } else {
      onFlushed = then;
    }
  }

  /** Nothing of this stream waits in Vert.x's queue or Netty's (or it is closed). */
  boolean flushed() {
    return closed || (unwritten == 0 && !response.writeQueueFull());
  }

  /**
   * Ends the stream with status OK (drain): the client sees a clean end and reconnects. Call it
   * only when the stream's connection has nothing unwritten (see {@link WatchDrain}): Vert.x 5.0.7
   * queues the trailers without a promise, and if the connection closes while they wait (a client
   * that stopped reading, cut at the drain timeout) it logs an NPE per stream.
   */
  void endCleanly() {
    if (!closed) {
      closed = true;
      supply.bytes().forget(this);
      sync.closed();
      response.end();
      observer.grpcCall(GrpcMethod.WATCH, GrpcStatus.OK);
    }
  }

  /** The client went away or the stream failed: stop sending. */
  @Override
  public void closed() {
    closed = true;
    supply.bytes().forget(this);
    sync.closed();
  }

  boolean isOpen() {
    return !closed;
  }

  @Override
  public Context context() {
    return context;
  }
}
