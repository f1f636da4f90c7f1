package dev.routesync.serve;

import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which local processes may talk to the agent on its socket, by the peer credentials ({@code
 * SO_PEERCRED}) the kernel reports for each connection. The socket file's mode stays the first line
 * of defence; this is the second, for a node where the socket's group is wider than the sidecars.
 *
 * @param allowUids {@code --allow-uids}: the only uids let in; empty lets any uid in
 * @param allowGids {@code --allow-gids}: the only (primary) gids let in; empty lets any gid in
 */
public record PeerPolicy(SortedSet<Integer> allowUids, SortedSet<Integer> allowGids) {

  /** Every peer the socket's mode lets connect. */
  public static final PeerPolicy ANY = new PeerPolicy(new TreeSet<>(), new TreeSet<>());

  public PeerPolicy {
    allowUids = checked("--allow-uids", allowUids);
    allowGids = checked("--allow-gids", allowGids);
  }

  public static PeerPolicy of(Collection<Integer> allowUids, Collection<Integer> allowGids) {
    return new PeerPolicy(new TreeSet<>(allowUids), new TreeSet<>(allowGids));
  }

  /** Whether either list restricts anything. */
  public boolean restricts() {
    return !allowUids.isEmpty() || !allowGids.isEmpty();
  }

  /** Whether a peer with these credentials may stay connected. */
  public boolean allows(int uid, int gid) {
    return (allowUids.isEmpty() || allowUids.contains(uid))
        && (allowGids.isEmpty() || allowGids.contains(gid));
  }

  private static SortedSet<Integer> checked(String flag, SortedSet<Integer> ids) {
    Objects.requireNonNull(ids, flag);
    for (Integer id : ids) {
      if (id == null || id < 0) {
        throw new IllegalArgumentException(flag + ": ids must be >= 0, got " + id);
      }
    }
    return java.util.Collections.unmodifiableSortedSet(new TreeSet<>(ids));
  }

  /** For the start-up log: {@code any}, or the lists. */
  public String describe() {
    if (!restricts()) {
      return "any";
    }
    return "uids="
        + (allowUids.isEmpty() ? "any" : join(allowUids))
        + " gids="
        + (allowGids.isEmpty() ? "any" : join(allowGids));
  }

  private static String join(Set<Integer> ids) {
    return String.join(",", ids.stream().map(String::valueOf).toList());
  }
}
