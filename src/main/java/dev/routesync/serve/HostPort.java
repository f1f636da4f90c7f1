package dev.routesync.serve;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * The host and optional port of a {@code Host} header or of an {@code Origin}, as a browser writes
 * them: a name or IPv4 address, or an IPv6 address in brackets, then {@code :port} or nothing.
 * Parsing is strict, and anything else is no host at all: the debug listener refuses what it cannot
 * read rather than guess.
 *
 * @param host as written, in lower case (an IPv6 address keeps its brackets)
 * @param port the port, or {@link #NO_PORT} when none is written
 */
record HostPort(String host, int port) {

  static final int NO_PORT = -1;
  private static final int HTTP_PORT = 80;
  private static final int MAX_HOST_LENGTH = 255;

  /** {@code text} read as a {@code Host} header's value; empty if it is not one. */
  static Optional<HostPort> parse(String text) {
    if (text == null || text.isEmpty() || text.length() > MAX_HOST_LENGTH + 6) {
      return Optional.empty();
    }
    String host;
    String rest;
    if (text.charAt(0) == '[') {
      int close = text.indexOf(']');
      if (close < 0) {
        return Optional.empty();
      }
      host = text.substring(0, close + 1);
      rest = text.substring(close + 1);
      if (!isIpv6Text(host.substring(1, close))) {
        return Optional.empty();
      }
    } else {
      int colon = text.indexOf(':');
      host = colon < 0 ? text : text.substring(0, colon);
      rest = colon < 0 ? "" : text.substring(colon);
      if (!isName(host)) {
        return Optional.empty();
      }
    }
    int port = NO_PORT;
    if (!rest.isEmpty()) {
      port = port(rest);
      if (port == NO_PORT) {
        return Optional.empty();
      }
    }
    return Optional.of(new HostPort(host.toLowerCase(Locale.ROOT), port));
  }

  /**
   * The host of an {@code Origin} header that names a plain-HTTP origin ({@code
   * http://host[:port]}, nothing after); empty for anything else: another scheme, {@code null}, a
   * path.
   */
  static Optional<HostPort> ofHttpOrigin(String origin) {
    String scheme = "http://";
    if (origin == null || !origin.regionMatches(/* ignoreCase= */ true, 0, scheme, 0, 7)) {
      return Optional.empty();
    }
    return parse(origin.substring(scheme.length()));
  }

  /**
   * Whether this names the machine itself by a name or address no one else controls: {@code
   * localhost}, an address of 127.0.0.0/8, or {@code [::1]}. A name a DNS server answers for (even
   * with 127.0.0.1) is not loopback: that is how DNS rebinding reaches a loopback listener.
   */
  boolean isLoopback() {
    if (host.equals("localhost")) {
      return true;
    }
    if (host.startsWith("[")) {
      try {
        // A bracketed literal of hex digits, colons and dots only (isIpv6Text): parsed, never
        // looked up.
        return InetAddress.getByName(host).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }
    return isLoopbackIpv4(host);
  }

  /** Whether a browser takes both for one origin's host and port (80 when none is written). */
  boolean sameHostAndPort(HostPort other) {
    return host.equals(other.host) && effectivePort() == other.effectivePort();
  }

  private int effectivePort() {
    return port == NO_PORT ? HTTP_PORT : port;
  }

  // Letters, digits, '.', '-' and '_': what a browser leaves of a host name after punycode.
  private static boolean isName(String host) {
    if (host.isEmpty() || host.length() > MAX_HOST_LENGTH) {
      return false;
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '-'
              || c == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  // Hex digits, ':' and '.' (an embedded IPv4 part), at least one ':'. No zone ("%eth0"): a
  // browser never sends one. With a ':' in it, InetAddress parses the text and never resolves it.
  private static boolean isIpv6Text(String text) {
    if (text.indexOf(':') < 0) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.digit(c, 16) < 0 && c != ':' && c != '.') {
        return false;
      }
    }
    return true;
  }

  // ":" and 1 to 5 digits, at most 65535; NO_PORT for anything else (":" alone too).
  private static int port(String rest) {
    if (rest.length() < 2 || rest.length() > 6 || rest.charAt(0) != ':') {
      return NO_PORT;
    }
    int port = 0;
    for (int i = 1; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c < '0' || c > '9') {
        return NO_PORT;
      }
      port = port * 10 + (c - '0');
    }
    return port <= 65535 ? port : NO_PORT;
  }

  // Four decimal parts of 0-255, the first 127: only the dotted form browsers normalise to.
  private static boolean isLoopbackIpv4(String host) {
    String[] parts = host.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty()
          || part.length() > 3
          || !part.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return false;
      }
      if (Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return Integer.parseInt(parts[0]) == 127;
  }
}
