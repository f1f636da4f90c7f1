package dev.routesync.xds;

import dev.routesync.streams.HubStream;

/** One open ADS stream, as the hub sees it (state of the world or delta). */
interface AdsStream extends HubStream {

  /** Ends the stream with OK (the agent is draining); on the context. */
  void endCleanly();
}
