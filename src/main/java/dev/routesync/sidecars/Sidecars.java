package dev.routesync.sidecars;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The open streams' sync states, and the propagation latency their acknowledgements measure. One
 * per agent, shared by the Registry and the ADS server.
 *
 * <p>Bounded: it holds one small state per open stream (the streams themselves are bounded by the
 * socket's limits), and an answer lists at most {@link #MAX_LIMIT} of them, chosen in O(n log
 * limit) without sorting them all.
 *
 * <p>Threading: {@link #open} and the states' updates on stream event loops, the reads anywhere.
 */
public final class Sidecars {

  /** Behind by more than this counts in the gauge and heads the list. */
  public static final Duration DEFAULT_BEHIND = Duration.ofSeconds(5);

  /** Streams listed when the request names no limit. */
  public static final int DEFAULT_LIMIT = 100;

  /** The most streams one answer lists, whatever the request asks. */
  public static final int MAX_LIMIT = 500;

  private static final Comparator<Ranked> MOST_BEHIND_FIRST =
      Comparator.comparingLong(Ranked::behind).thenComparingLong(Ranked::connected).reversed();

  private record Ranked(SyncState state, long behind, long connected) {}

  private final Set<SyncState> states = ConcurrentHashMap.newKeySet();
  private final LongSupplier wallMillis;
  private final long behindThresholdMillis;
  private final TriggerLedger ledger;
  private final PropagationHistogram histogram = new PropagationHistogram();
  private volatile PropagationObserver observer = PropagationObserver.NONE;

  /** On the system clock, behind past {@link #DEFAULT_BEHIND}. */
  public Sidecars() {
    this(System::currentTimeMillis, DEFAULT_BEHIND);
  }

  public Sidecars(LongSupplier wallMillis, Duration behindThreshold) {
    this.wallMillis = wallMillis;
    this.behindThresholdMillis = behindThreshold.toMillis();
    this.ledger = new TriggerLedger(wallMillis);
  }

  /** Where the sync stage writes each change's trigger time, and streams look it up. */
  public TriggerLedger ledger() {
    return ledger;
  }

  /** Also reports each propagation sample to {@code newObserver} (the exported histogram). */
  public void observeWith(PropagationObserver newObserver) {
    this.observer = newObserver;
  }

  /** A stream opened by {@code peer}, following {@code types} (their labels, in index order). */
  public SyncState open(Protocol protocol, PeerIds peer, List<String> types) {
    SyncState state = new SyncState(this, protocol, peer, types, wallMillis.getAsLong());
    states.add(state);
    return state;
  }

  /** A state for a stream nobody lists (no server tracks it): its updates go nowhere visible. */
  public SyncState untracked(Protocol protocol, List<String> types) {
    return new SyncState(this, protocol, PeerIds.UNKNOWN, types, wallMillis.getAsLong());
  }

  void remove(SyncState state) {
    states.remove(state);
  }

  long nowMillis() {
    return wallMillis.getAsLong();
  }

  void propagated(Protocol protocol, long millis) {
    long sample = Math.max(0, millis);
    histogram.record(sample);
    observer.propagated(protocol, sample);
  }

  /** Open streams. */
  public int size() {
    return states.size();
  }

  /** Streams behind by more than the threshold now: the gauge. */
  public int behind() {
    long now = wallMillis.getAsLong();
    int count = 0;
    for (SyncState state : states) {
      if (state.behindMillis(now) > behindThresholdMillis) {
        count++;
      }
    }
    return count;
  }

  /** The propagation latencies recorded since the agent started. */
  public PropagationHistogram.Snapshot latency() {
    return histogram.snapshot();
  }

  /**
   * At most {@code limit} streams (clamped to 1..{@link #MAX_LIMIT}), the most behind first, then
   * the longest connected.
   */
  public ClientsSnapshot snapshot(int limit) {
    int max = Math.max(1, Math.min(limit, MAX_LIMIT));
    long now = wallMillis.getAsLong();
    // The least behind at the head, so that it is the one dropped when a more behind one comes.
    PriorityQueue<Ranked> kept = new PriorityQueue<>(max + 1, MOST_BEHIND_FIRST.reversed());
    int total = 0;
    int behind = 0;
    for (SyncState state : states) {
      total++;
      long behindMillis = state.behindMillis(now);
      if (behindMillis > behindThresholdMillis) {
        behind++;
      }
      kept.add(new Ranked(state, behindMillis, state.connectedMillis(now)));
      if (kept.size() > max) {
        kept.poll();
      }
    }
    List<Ranked> ranked = new ArrayList<>(kept);
    ranked.sort(MOST_BEHIND_FIRST);
    List<ClientView> views = new ArrayList<>(ranked.size());
    for (Ranked each : ranked) {
      views.add(each.state.view(now));
    }
    return new ClientsSnapshot(total, behind, behindThresholdMillis, max, views);
  }
}
