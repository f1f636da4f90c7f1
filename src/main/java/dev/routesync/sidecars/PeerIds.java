package dev.routesync.sidecars;

/**
 * Who opened a stream, from the kernel ({@code SO_PEERCRED} on the Unix socket).
 *
 * @param uid the unsigned uid, or {@link #UNKNOWN_UID} where the transport gives none (TCP, NIO)
 * @param pid the connecting process, or 0 when unknown
 */
public record PeerIds(long uid, int pid) {

  public static final long UNKNOWN_UID = -1;

  /** For a connection that carries no credentials. */
  public static final PeerIds UNKNOWN = new PeerIds(UNKNOWN_UID, 0);

  public boolean known() {
    return uid != UNKNOWN_UID;
  }
}
