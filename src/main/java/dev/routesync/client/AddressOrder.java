package dev.routesync.client;

import com.google.common.net.InetAddresses;
import com.google.common.primitives.UnsignedBytes;
import dev.routesync.api.v1.Endpoint;
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

  /** The address's bytes (4 or 16), or none for text that is no IP literal (never resolved). */
  private static byte[] bytes(String ip) {
    return InetAddresses.isInetAddress(ip) ? InetAddresses.forString(ip).getAddress() : new byte[0];
  }

  private static int compare(byte[] left, byte[] right) {
    if (left.length != right.length) {
      // 4 (IPv4) before 16 (IPv6); no address (0) after both.
      return Integer.compare(rank(left), rank(right));
    }
    return UnsignedBytes.lexicographicalComparator().compare(left, right);
  }

  private static int rank(byte[] address) {
    return address.length == 0 ? Integer.MAX_VALUE : address.length;
  }
}
