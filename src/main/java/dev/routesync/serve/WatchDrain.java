package dev.routesync.serve;

import java.util.Set;
import java.util.function.Consumer;

/**
 * How the Watch streams of a connection that is shutting down end: with status OK, once nothing is
 * left unwritten on any of them. A stream's end queued behind unwritten data (a client that stopped
 * reading) cannot be sent anyway, and Vert.x logs an NPE for it when the drain timeout cuts the
 * connection. Streams that never flush are dropped when their connection closes.
 */
final class WatchDrain {

  private WatchDrain() {}

  static void endOnceFlushed(Set<WatchStream> ending, Consumer<WatchStream> ended) {
    // All streams of a connection share its event loop.
    ending
        .iterator()
        .next()
        .context()
        .runOnContext(
            ignored -> {
              Runnable endAllIfFlushed =
                  () -> {
                    if (ending.stream().allMatch(WatchStream::flushed)) {
                      for (WatchStream stream : ending) {
                        if (stream.isOpen()) {
                          stream.endCleanly();
                          ended.accept(stream);
                        }
                      }
                    }
                  };
              for (WatchStream stream : ending) {
                stream.stopAndWhenFlushed(endAllIfFlushed);
              }
            });
  }
}
