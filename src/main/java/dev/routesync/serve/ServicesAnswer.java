package dev.routesync.serve;

import dev.routesync.table.FreshnessView;
import dev.routesync.table.ServiceEndpoints;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code GET /v1/services} answer too large to build whole: written in chunks of about {@link
 * #CHUNK_CHARS}, each printed on a worker thread (the event loop only writes), the next one only
 * once the connection has taken the last ({@code writeQueueFull}, then its drain). What it holds is
 * one chunk and the connection's write queue, whatever the table's size; its {@link AnswerSlots}
 * bound how many are written at once. It reads one immutable table, so the answer is one version
 * however long the client takes.
 *
 * <p>The client sees the same document as a small answer's, sent with chunked transfer encoding
 * (HTTP/1.1) or DATA frames (HTTP/2). A client that goes away ends it at the next chunk.
 */
final class ServicesAnswer {

  private static final Logger LOG = LoggerFactory.getLogger(ServicesAnswer.class);

  /** About this many characters of JSON a chunk (the last Service may take it over). */
  static final int CHUNK_CHARS = 64 * 1024;

  private final Vertx vertx;
  private final Context context;
  private final HttpServerResponse response;
  private final Iterator<ServiceEndpoints> services;
  private final ServicesJson json;
  private final AnswerSlots slots;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile boolean gone;
  private int written;

  private ServicesAnswer(
      Vertx vertx,
      RoutingContext ctx,
      Collection<ServiceEndpoints> services,
      ServicesJson json,
      AnswerSlots slots) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.response = ctx.response();
    this.services = services.iterator();
    this.json = json;
    this.slots = slots;
  }

  /**
   * Answers with {@code services} of a table at {@code version} when a slot is free (now, or when
   * one frees up); false when the waiting line is full: nothing was written, answer 503.
   */
  static boolean send(
      Vertx vertx,
      RoutingContext ctx,
      long version,
      Collection<ServiceEndpoints> services,
      FreshnessView freshness,
      AnswerSlots slots) {
    ServicesAnswer answer =
        new ServicesAnswer(vertx, ctx, services, ServicesJson.envelope(version, freshness), slots);
    // Before a slot: a client that leaves while it waits frees nothing it never held, and its
    // turn, when it comes, ends at once.
    answer.response.closeHandler(ignored -> answer.gone = true);
    return slots.enter(() -> answer.context.runOnContext(ignored -> answer.begin()));
  }

  private void begin() {
    if (gone) {
      end();
      return;
    }
    response.setStatusCode(200).putHeader("content-type", "application/json").setChunked(true);
    response.exceptionHandler(ignored -> gone = true);
    nextChunk(new StringBuilder(CHUNK_CHARS + 1024).append(json.head()));
  }

  private void nextChunk(StringBuilder start) {
    vertx
        .executeBlocking(
            () -> {
              StringBuilder chunk = start == null ? new StringBuilder(CHUNK_CHARS + 1024) : start;
              written = ServicesJson.appendUntil(chunk, services, written, CHUNK_CHARS);
              if (!services.hasNext()) {
                chunk.append(json.tail());
              }
              return chunk.toString();
            },
            /* ordered= */ false)
        .onComplete(
            chunk -> {
              if (gone) {
                end();
                return;
              }
              if (chunk.failed()) {
                // A Service that does not print is a defect; the 200 is already out, so cut it.
                LOG.warn(
                    "GET /v1/services cut after {} Services: a chunk failed",
                    written,
                    chunk.cause());
                response.reset();
                end();
                return;
              }
              if (!services.hasNext()) {
                response.end(chunk.result()).onComplete(ignored -> end());
                return;
              }
              response.write(Buffer.buffer(chunk.result()));
              if (response.writeQueueFull()) {
                response.drainHandler(ignored -> nextChunk(null));
              } else {
                nextChunk(null);
              }
            });
  }

  /** Frees the slot, once. */
  private void end() {
    if (ended.compareAndSet(false, true)) {
      slots.leave();
    }
  }
}
