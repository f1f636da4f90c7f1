package dev.routesync.kube;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Strict IP literal checks that never touch DNS. */
final class IpAddresses {

  private IpAddresses() {}

  /** Dotted quad, four decimal octets 0-255 without leading zeros (as the API server requires). */
  static boolean isIpv4(String text) {
    if (text == null || text.isEmpty() || text.length() > 15) {
      return false;
    }
    String[] parts = text.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 3 || (part.length() > 1 && part.charAt(0) == '0')) {
        return false;
      }
      for (int i = 0; i < part.length(); i++) {
        if (!Character.isDigit(part.charAt(i)) || part.charAt(i) > '9') {
          return false;
        }
      }
      if (Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return true;
  }

  static boolean isIpv6(String text) {
    // A string with ':' is always parsed as a literal by InetAddress, never resolved.
    if (text == null || text.indexOf(':') < 0 || text.indexOf('%') >= 0 || text.startsWith("[")) {
      return false;
    }
    try {
      return InetAddress.getByName(text) instanceof Inet6Address;
    } catch (UnknownHostException | SecurityException e) {
      return false;
    }
  }

  static boolean isIp(String text) {
    return isIpv4(text) || isIpv6(text);
  }
}
