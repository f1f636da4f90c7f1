package dev.routesync.kube.translate;

import dev.routesync.table.Ipv4;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Strict IP literal checks that never touch DNS. */
final class IpAddresses {

  private IpAddresses() {}

  /** Dotted quad, four decimal octets 0-255 without leading zeros (as the API server requires). */
  static boolean isIpv4(String text) {
    return Ipv4.parse(text) >= 0;
  }

  static boolean isIpv6(String text) {
    return canonicalIpv6(text) != null;
  }

  /**
   * The RFC 5952 form of an IPv6 literal (lower case, longest zero run compressed), or {@code null}
   * when {@code text} is not one. Only text of hex digits, ':' and '.' that starts with a hex digit
   * or ':' reaches InetAddress, which parses such text as a literal and never consults the resolver
   * (text starting with anything else, '.' included, it looks up as a host name: a blocking DNS
   * query on the sync thread, found while writing its fuzz test).
   */
  static String canonicalIpv6(String text) {
    if (text == null || text.length() > 45 || text.indexOf(':') < 0 || text.charAt(0) == '.') {
      return null;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!hex && c != ':' && c != '.') {
        return null;
      }
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(text);
    } catch (UnknownHostException | SecurityException e) {
      return null;
    }
    return address instanceof Inet6Address ? format(address.getAddress()) : null;
  }

  private static String format(byte[] bytes) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
    }
    // The longest run of at least two zero groups (the first one on a tie) becomes "::".
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder out = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }

  /** The canonical text of an IPv4 or IPv6 literal, or {@code null} when it is neither. */
  static String canonical(String text) {
    return isIpv4(text) ? text : canonicalIpv6(text);
  }

  static boolean isIp(String text) {
    return canonical(text) != null;
  }
}
