package dev.routesync.xds;

import io.vertx.core.Context;

/** One open ADS stream, as the hub sees it (state of the world or delta). */
interface AdsStream {

  /** Something changed (a version, the table's trust): look again. Any thread. */
  void nudge();

  /** The stream's connection context, where everything else runs. */
  Context context();

  /** Ends the stream with OK (the agent is draining); on the context. */
  void endCleanly();

  /** The client went away; sends nothing more. On the context. */
  void closed();
}
