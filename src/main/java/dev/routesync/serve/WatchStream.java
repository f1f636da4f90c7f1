package dev.routesync.serve;

import dev.routesync.api.v1.WatchEvent;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableView;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerResponse;
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
 * <p>Backpressure comes from HTTP/2 flow control: while the write queue is full nothing is built;
 * the drain handler resumes. Threading: everything runs on the stream's connection context; {@link
 * #nudge} may be called from any thread.
 */
final class WatchStream {

  private final Context context;
  private final GrpcServerResponse<?, WatchEvent> response;
  private final WatchFilter filter;
  private final TableView table;
  private final TableTrust trust;
  private final ServeObserver observer;
  private final AtomicBoolean nudged = new AtomicBoolean();
  private long resumeFrom;
  private boolean started;
  private long sentVersion;
  private boolean waitingForDrain;
  private boolean closed;

  WatchStream(
      Context context,
      GrpcServerResponse<?, WatchEvent> response,
      WatchFilter filter,
      TableView table,
      TableTrust trust,
      ServeObserver observer) {
    this.context = context;
    this.response = response;
    this.filter = filter;
    this.table = table;
    this.trust = trust;
    this.observer = observer;
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

  /** The first message: only what changed since {@code resumeFrom}, or a full snapshot. */
  private void start() {
    started = true;
    RoutingTable current = table.current();
    Optional<Set<ServiceKey>> changed =
        resumeFrom > 0 ? current.changedSince(resumeFrom) : Optional.empty();
    if (changed.isPresent()) {
      sentVersion = resumeFrom;
      send(current, changed.get(), /* always= */ true);
    } else {
      sendSnapshot(current);
    }
  }

  /** A new table version was published. Any thread; coalesces to one task on the context. */
  void nudge() {
    if (nudged.compareAndSet(false, true)) {
      context.runOnContext(
          ignored -> {
            nudged.set(false);
            flush();
          });
    }
  }

  private void flush() {
    if (closed || waitingForDrain) {
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
      waitingForDrain = true;
      response.drainHandler(
          ignored -> {
            waitingForDrain = false;
            flush();
          });
      return;
    }
    RoutingTable current = table.current();
    if (current.version() == sentVersion) {
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

  private void send(RoutingTable current, Set<ServiceKey> changed, boolean always) {
    WatchEvent.Builder event = WatchEvent.newBuilder().setVersion(current.version());
    for (ServiceKey key : changed) {
      if (!filter.matches(key)) {
        continue;
      }
      Optional<ServiceEndpoints> service = current.get(key);
      if (service.isPresent()) {
        event.addUpserted(ProtoMapping.service(service.get()));
      } else {
        event.addRemoved(ProtoMapping.ref(key));
      }
    }
    sentVersion = current.version();
    int services = event.getUpsertedCount() + event.getRemovedCount();
    // Versions that touch nothing this stream follows are skipped silently.
    if (services > 0 || always) {
      write(event.build(), services);
    }
  }

  private void sendSnapshot(RoutingTable current) {
    WatchEvent.Builder event = WatchEvent.newBuilder().setVersion(current.version()).setReset(true);
    for (ServiceEndpoints service : filter.snapshot(current)) {
      event.addUpserted(ProtoMapping.service(service));
    }
    sentVersion = current.version();
    write(event.build(), event.getUpsertedCount());
  }

  private void write(WatchEvent event, int services) {
    response.write(event);
    observer.watchMessage(services);
  }

  /** Ends the stream with status OK (drain): the client sees a clean end and reconnects. */
  void endCleanly() {
    if (!closed) {
      closed = true;
      response.end();
      observer.grpcCall(GrpcMethod.WATCH, GrpcStatus.OK);
    }
  }

  /**
   * The client went away or the stream failed: stop sending.
   *
   * @return true if the stream was open until now
   */
  boolean closed() {
    boolean wasOpen = !closed;
    closed = true;
    return wasOpen;
  }

  Context context() {
    return context;
  }
}
