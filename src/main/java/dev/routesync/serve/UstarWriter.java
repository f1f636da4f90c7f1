package dev.routesync.serve;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Writes a POSIX ustar archive of regular files: the debug bundle's container, read back by any
 * {@code tar}. Only what the bundle needs: regular files, names of fewer than 100 bytes (no prefix
 * field, no PAX headers), mode 0644, one modification time, owner 0:0, and the header checksum.
 *
 * <p>Written here rather than taken from commons-compress: 1.26 and later pull commons-io and
 * commons-lang3 into the agent's jar, which must stay under its size limit ({@code
 * scripts/check-runtime.sh}), and a ustar header is 512 bytes of fixed fields (POSIX.1-1988, "pax"
 * in IEEE Std 1003.1 describes the same layout).
 *
 * <p>Not thread-safe: one writer per archive, closed with {@link #finish()}.
 */
final class UstarWriter {

  static final int BLOCK = 512;
  static final int MAX_NAME_BYTES = 99; // the name field is 100 bytes, NUL-terminated here
  // The size field holds 11 octal digits.
  static final long MAX_SIZE = 077777777777L;

  private final OutputStream out;
  private final long mtimeSeconds;
  private boolean finished;

  /**
   * @param out where the archive goes (not closed here)
   * @param mtimeSeconds every entry's modification time, in seconds since the epoch
   */
  UstarWriter(OutputStream out, long mtimeSeconds) {
    this.out = Objects.requireNonNull(out, "out");
    this.mtimeSeconds = mtimeSeconds;
  }

  /** Adds one regular file, mode 0644, holding {@code content}. */
  void add(String name, byte[] content) throws IOException {
    if (finished) {
      throw new IllegalStateException("the archive is finished");
    }
    byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
    if (nameBytes.length == 0 || nameBytes.length > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(
          "a ustar name must have 1 to " + MAX_NAME_BYTES + " bytes: '" + name + "'");
    }
    if (content.length > MAX_SIZE) {
      throw new IllegalArgumentException("entry too large for ustar: " + content.length);
    }
    out.write(header(nameBytes, content.length));
    out.write(content);
    int pad = (BLOCK - content.length % BLOCK) % BLOCK;
    out.write(new byte[pad]);
  }

  /** Writes the end of the archive: two zero blocks. */
  void finish() throws IOException {
    if (!finished) {
      finished = true;
      out.write(new byte[2 * BLOCK]);
    }
  }

  private byte[] header(byte[] name, long size) {
    byte[] h = new byte[BLOCK];
    System.arraycopy(name, 0, h, 0, name.length); // name: 0..99
    octal(h, 100, 8, 0644); // mode
    octal(h, 108, 8, 0); // uid
    octal(h, 116, 8, 0); // gid
    octal(h, 124, 12, size); // size
    octal(h, 136, 12, mtimeSeconds); // mtime
    Arrays.fill(h, 148, 156, (byte) ' '); // checksum counts as spaces while it is summed
    h[156] = '0'; // typeflag: regular file
    ascii(h, 257, "ustar\0"); // magic
    ascii(h, 263, "00"); // version
    ascii(h, 265, "root"); // uname
    ascii(h, 297, "root"); // gname
    int sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    // Six octal digits, NUL, space: the form every tar writes and reads.
    String digits = String.format("%06o", sum);
    ascii(h, 148, digits);
    h[154] = 0;
    h[155] = ' ';
    return h;
  }

  // Zero-padded octal filling the field but its last byte, which stays NUL.
  private static void octal(byte[] h, int offset, int length, long value) {
    String digits = Long.toOctalString(value);
    int width = length - 1;
    if (digits.length() > width) {
      throw new IllegalArgumentException("value " + value + " does not fit " + width + " digits");
    }
    ascii(h, offset, "0".repeat(width - digits.length()) + digits);
  }

  private static void ascii(byte[] h, int offset, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(bytes, 0, h, offset, bytes.length);
  }
}
