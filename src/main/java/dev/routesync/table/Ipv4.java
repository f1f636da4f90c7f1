package dev.routesync.table;

/**
 * IPv4 addresses as an {@code int} (the first octet in the high byte): the strict text form the API
 * server accepts, its text back, and the order of that text computed without making it.
 */
public final class Ipv4 {

  /** For each octet value, its decimal text's position among the texts of 0..255 in text order. */
  private static final byte[] TEXT_RANK = new byte[256];

  static {
    String[] texts = new String[256];
    for (int v = 0; v < 256; v++) {
      texts[v] = Integer.toString(v);
    }
    String[] sorted = texts.clone();
    java.util.Arrays.sort(sorted);
    for (int rank = 0; rank < 256; rank++) {
      TEXT_RANK[Integer.parseInt(sorted[rank])] = (byte) rank;
    }
  }

  private Ipv4() {}

  /**
   * The address of a dotted quad of four decimal octets 0-255 without leading zeros (what the API
   * server requires), or {@code -1} when {@code text} is not one. A hand-rolled scan: this runs for
   * every endpoint of every recomputed Service.
   */
  public static long parse(String text) {
    if (text == null || text.isEmpty() || text.length() > 15) {
      return -1;
    }
    int octets = 0;
    int value = 0;
    int digits = 0;
    int address = 0;
    for (int i = 0; i <= text.length(); i++) {
      char c = i == text.length() ? '.' : text.charAt(i);
      if (c == '.') {
        if (digits == 0 || value > 255 || octets == 4) {
          return -1;
        }
        address = (address << 8) | value;
        octets++;
        value = 0;
        digits = 0;
      } else if (c >= '0' && c <= '9') {
        if (digits > 0 && value == 0) {
          return -1; // leading zero
        }
        value = value * 10 + (c - '0');
        if (++digits > 3) {
          return -1;
        }
      } else {
        return -1;
      }
    }
    return octets == 4 ? address & 0xFFFF_FFFFL : -1;
  }

  /** The dotted quad of {@code address}. */
  public static String format(int address) {
    StringBuilder out = new StringBuilder(15);
    for (int shift = 24; shift >= 0; shift -= 8) {
      out.append((address >>> shift) & 255);
      if (shift > 0) {
        out.append('.');
      }
    }
    return out.toString();
  }

  /**
   * Orders two addresses exactly as their texts compare ({@link String#compareTo}), with no text.
   * Text order compares octet by octet: equal octet texts are followed by '.' (or the end) on both
   * sides; a shorter octet text that prefixes the other meets '.' or the end against a digit, and
   * both sort first, as the shorter string does. So the text order of the quads is the order of the
   * octets' texts, which a 256-entry rank table turns into one unsigned comparison.
   */
  static int compareAsText(int a, int b) {
    return a == b ? 0 : Integer.compareUnsigned(textKey(a), textKey(b));
  }

  private static int textKey(int address) {
    return (TEXT_RANK[address >>> 24] & 255) << 24
        | (TEXT_RANK[(address >>> 16) & 255] & 255) << 16
        | (TEXT_RANK[(address >>> 8) & 255] & 255) << 8
        | (TEXT_RANK[address & 255] & 255);
  }

  /**
   * Compares the text of {@code address} with {@code text} as {@link String#compareTo} would (only
   * the sign is meaningful), reading the quad's characters one at a time instead of making them.
   */
  static int compareAsText(int address, String text) {
    int at = 0;
    int length = text.length();
    for (int shift = 24; shift >= 0; shift -= 8) {
      int octet = (address >>> shift) & 255;
      for (int divisor = octet >= 100 ? 100 : octet >= 10 ? 10 : 1; divisor > 0; divisor /= 10) {
        if (at == length) {
          return 1;
        }
        int difference = ('0' + octet / divisor % 10) - text.charAt(at++);
        if (difference != 0) {
          return difference;
        }
      }
      if (shift > 0) {
        if (at == length) {
          return 1;
        }
        int difference = '.' - text.charAt(at++);
        if (difference != 0) {
          return difference;
        }
      }
    }
    return at == length ? 0 : -1;
  }
}
