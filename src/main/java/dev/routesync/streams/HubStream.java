package dev.routesync.streams;

import io.vertx.core.Context;

/** One open server stream, as its {@link StreamHub} sees it. */
public interface HubStream {

  /** Something changed (a version, the table's trust): look again. Any thread; cheap, coalesced. */
  void nudge();

  /** The stream's connection context, where everything else of the stream runs. */
  Context context();

  /** The connection closed: send nothing more. On the context. */
  void closed();
}
