package dev.routesync.observe;

import dev.routesync.serve.SocketRefusal;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code routesync_socket_refused_total{uid, reason}}: socket connections closed at accept because
 * the socket was at its cap ({@code reason="cap"}) or the peer's uid held its share ({@code
 * reason="uid_share"}), and calls refused because the socket had {@code --max-streams} open ({@code
 * "stream_cap"}) or the uid held its share of them ({@code "stream_share"}), by the peer's uid. A
 * client picks its uid as far as the socket's mode lets it in, so the label set is bounded: the
 * first {@link #LABELLED_UIDS} uids refused get a series of their own, for good (a counter must not
 * move between series); later ones count under {@code uid="other"}, and peers whose credentials
 * could not be read under {@code uid="unknown"}. At most ({@value #LABELLED_UIDS} + 2) x 4 series.
 *
 * <p>Threading: called on the socket's acceptor event loop; synchronized anyway (a map lookup).
 */
final class UidRefusals {

  /** Uids that get a series of their own. */
  static final int LABELLED_UIDS = 32;

  static final String NAME = "routesync.socket.refused";
  private static final String DESCRIPTION =
      "Socket connections closed at accept and calls refused (cap reached, or the uid held its"
          + " share), by the peer's uid: the first "
          + LABELLED_UIDS
          + " uids refused, then other; unknown without credentials";

  private final MeterRegistry registry;
  private final int labelled;
  private final Map<Long, Map<SocketRefusal, Counter>> byUid = new HashMap<>();
  private final Map<SocketRefusal, Counter> other;
  private final Map<SocketRefusal, Counter> unknown;

  UidRefusals(MeterRegistry registry) {
    this(registry, LABELLED_UIDS);
  }

  UidRefusals(MeterRegistry registry, int labelled) {
    this.registry = registry;
    this.labelled = labelled;
    this.other = counters("other");
    this.unknown = counters("unknown");
  }

  synchronized void refused(long uid, SocketRefusal why) {
    Map<SocketRefusal, Counter> counters;
    if (uid < 0) {
      counters = unknown;
    } else {
      counters = byUid.get(uid);
      if (counters == null) {
        if (byUid.size() < labelled) {
          counters = counters(Long.toString(uid));
          byUid.put(uid, counters);
        } else {
          counters = other;
        }
      }
    }
    counters.get(why).increment();
  }

  /** Uids with a series of their own (what this holds in memory). */
  synchronized int labelledUids() {
    return byUid.size();
  }

  private Map<SocketRefusal, Counter> counters(String uid) {
    Map<SocketRefusal, Counter> counters = new EnumMap<>(SocketRefusal.class);
    for (SocketRefusal why : SocketRefusal.values()) {
      counters.put(
          why,
          Counter.builder(NAME)
              .description(DESCRIPTION)
              .tag("uid", uid)
              .tag("reason", why.label())
              .register(registry));
    }
    return counters;
  }
}
