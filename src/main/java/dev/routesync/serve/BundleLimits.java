package dev.routesync.serve;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How large a debug bundle may grow: each entry at most {@code entryBytes}, the whole archive
 * (uncompressed) at most {@code totalBytes}. An entry over either is cut, and its last line says so
 * and how large it was: a bundle is attached to a bug report and built while the agent serves, so
 * neither a huge thread dump nor a large table may make it unbounded.
 *
 * @param entryBytes at most this many bytes of content per entry
 * @param totalBytes at most this many bytes of content in all entries together
 */
record BundleLimits(int entryBytes, long totalBytes) {

  /** 8 MiB an entry, 32 MiB in all. */
  static final BundleLimits DEFAULT = new BundleLimits(8 << 20, 32L << 20);

  // Room for the marker line, so that a cut entry with its marker stays within the limit.
  private static final int MARKER_ROOM = 200;

  BundleLimits {
    if (entryBytes <= MARKER_ROOM || totalBytes < entryBytes) {
      throw new IllegalArgumentException(
          "entryBytes must exceed " + MARKER_ROOM + " and totalBytes must be at least entryBytes");
    }
  }

  /**
   * {@code content} as it goes into the bundle when {@code remaining} bytes of the total are left:
   * whole when it fits, else cut at a character boundary and ended with a line saying it was cut.
   */
  byte[] fit(byte[] content, long remaining) {
    long room = Math.min(entryBytes, remaining);
    if (content.length <= room) {
      return content;
    }
    byte[] marker =
        ("\n[cut: this entry was "
                + content.length
                + " bytes; a debug bundle keeps at most "
                + entryBytes
                + " bytes of an entry and "
                + totalBytes
                + " in all]\n")
            .getBytes(StandardCharsets.UTF_8);
    int keep = (int) Math.max(0, room - marker.length);
    // Never split a UTF-8 sequence: back off over continuation bytes (10xxxxxx).
    while (keep > 0 && keep < content.length && (content[keep] & 0xC0) == 0x80) {
      keep--;
    }
    byte[] out = Arrays.copyOf(content, keep + marker.length);
    System.arraycopy(marker, 0, out, keep, marker.length);
    return out;
  }
}
