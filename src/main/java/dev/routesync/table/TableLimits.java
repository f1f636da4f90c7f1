package dev.routesync.table;

/**
 * The most a table holds, in one place: the state file's format bounds every count and string it
 * reads by these ({@code state/TableCodec}), and its writer refuses a table over them. Translation
 * keeps each entry within them where it makes it ({@code kube/translate/OverLimits}, {@code
 * kube/ServicePorts}) and counts what it cut, so that one object the API server accepted never
 * makes every node's state file unwritable or unreadable.
 *
 * <p>Two limits no one object can reach: {@link #MAX_SERVICES} and {@link
 * #MAX_ENDPOINTS_PER_SERVICE} bound a whole table and a whole Service (a thousand slices or more).
 * A million endpoints is over six times the most Kubernetes supports in a cluster and the most the
 * agent's sizing goes to (docs/install.md), so translation does not cut at them; a table over one
 * fails its write, and the last file written stays.
 */
public final class TableLimits {

  /** Services in one table. */
  public static final int MAX_SERVICES = 1_000_000;

  /** Endpoints of one Service. */
  public static final int MAX_ENDPOINTS_PER_SERVICE = 1_000_000;

  /**
   * Ports of one Service's declared list, and of one endpoint. The API server caps a slice at 100
   * ports but neither a Service's ports nor an address listed in several slices.
   */
  public static final int MAX_PORTS = 1_024;

  /**
   * UTF-8 bytes of one string (a name, an address, a zone, a hint, a protocol). Kubernetes names
   * are at most 253 characters; an endpoint's {@code zone} and {@code targetRef.name} are not
   * checked by the API server.
   */
  public static final int MAX_STRING_BYTES = 1_024;

  /** Hint names of one kind (zones, nodes) on one endpoint. */
  public static final int MAX_HINTS = 64;

  /** Addresses besides the primary on one endpoint (a dual-stack pod has one). */
  public static final int MAX_ADDITIONAL_ADDRESSES = 8;

  private TableLimits() {}

  /** Whether {@code text} (null is absent) fits a table string: {@link #MAX_STRING_BYTES}. */
  public static boolean fits(String text) {
    // A char is at most 3 UTF-8 bytes (a surrogate pair, 2 chars, is 4): short text always fits.
    return text == null
        || text.length() <= MAX_STRING_BYTES / 3
        || utf8Bytes(text) <= MAX_STRING_BYTES;
  }

  /** The length of {@code text} in UTF-8. */
  public static int utf8Bytes(String text) {
    // Counted, not encoded: an over-long value is measured without a copy of it.
    int bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3; // a lone surrogate too: Java writes it as '?', so never under the count
      }
    }
    return bytes;
  }
}
