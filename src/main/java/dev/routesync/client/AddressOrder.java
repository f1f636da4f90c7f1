package dev.routesync.client;

import dev.routesync.api.v1.Endpoint;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The order the CLI prints endpoints in: by address, as a reader scans a list of IPs ({@code
 * 10.1.1.13} before {@code 10.1.1.120}), IPv4 before IPv6, IPv6 by its bytes. The agent sends
 * endpoints in its table's order, which is not this one.
 */
final class AddressOrder {

  /** IPv4 before IPv6, each by its bytes; text that is no address last, as text. */
  static final Comparator<Endpoint> BY_ADDRESS =
      Comparator.comparing((Endpoint endpoint) -> bytes(endpoint.getIp()), AddressOrder::compare)
          .thenComparing(Endpoint::getIp);

  private AddressOrder() {}

  /** {@code endpoints}, sorted by address. */
  static List<Endpoint> sorted(List<Endpoint> endpoints) {
    return endpoints.stream().sorted(BY_ADDRESS).toList();
  }

  /**
   * The address's bytes (4 or 16), or none for text that is no IP literal. Only text of digits, hex
   * letters, '.' and ':' reaches {@link InetAddress}, which parses such text as a literal and never
   * asks the resolver. (Guava's {@code InetAddresses} would do the same, but the agent jar is
   * minimized and Guava's hashing, which that class reaches, calls classes the minimizer drops.)
   */
  private static byte[] bytes(String ip) {
    if (ip == null || ip.isEmpty() || ip.length() > 45 || ip.charAt(0) == '.') {
      return new byte[0];
    }
    boolean colon = false;
    boolean letters = false;
    int dots = 0;
    for (int i = 0; i < ip.length(); i++) {
      char c = ip.charAt(i);
      boolean digit = c >= '0' && c <= '9';
      boolean hexLetter = (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      colon |= c == ':';
      letters |= hexLetter;
      dots += c == '.' ? 1 : 0;
      if (!digit && !hexLetter && c != ':' && c != '.') {
        return new byte[0];
      }
    }
    // Without a colon only a dotted quad of digits is a literal: anything else (a.b.c.d) would be
    // looked up as a host name.
    if (!colon && (letters || dots != 3)) {
      return new byte[0];
    }
    try {
      return InetAddress.getByName(ip).getAddress();
    } catch (UnknownHostException | SecurityException e) {
      return new byte[0];
    }
  }

  private static int compare(byte[] left, byte[] right) {
    if (left.length != right.length) {
      // 4 (IPv4) before 16 (IPv6); no address (0) after both.
      return Integer.compare(rank(left), rank(right));
    }
    return Arrays.compareUnsigned(left, right);
  }

  private static int rank(byte[] address) {
    return address.length == 0 ? Integer.MAX_VALUE : address.length;
  }
}
