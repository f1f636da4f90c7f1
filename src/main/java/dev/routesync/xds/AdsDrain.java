package dev.routesync.xds;

import java.util.Set;
import java.util.function.Consumer;

/**
 * How the ADS streams of a connection that is shutting down (GOAWAY) end: forgotten at once, and
 * ended with OK one event-loop turn later, so the client reads the GOAWAY first and reconnects to
 * the next agent.
 */
final class AdsDrain {

  private AdsDrain() {}

  static void endNextTurn(Set<AdsStream> ending, Consumer<AdsStream> ended) {
    for (AdsStream stream : ending) {
      ended.accept(stream);
    }
    for (AdsStream stream : ending) {
      stream.context().runOnContext(ignored -> stream.endCleanly());
    }
  }
}
