package dev.routesync.client;

import java.net.URI;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code HOST:PORT} of the agent's debug listener ({@code [::1]:9902} for an IPv6 literal).
 *
 * @param host a host name or an address literal, without brackets
 * @param port 1 to 65535
 */
record DebugAddress(String host, int port) {

  /** The debug listener's base URL. */
  URI base() {
    return URI.create("http://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port);
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  /** Picocli's converter: a malformed address is a usage error (exit code 2). */
  static final class Converter implements ITypeConverter<DebugAddress> {
    @Override
    public DebugAddress convert(String value) {
      return parse(value);
    }
  }

  static DebugAddress parse(String value) {
    String text = value.trim();
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw invalid(value);
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw invalid(value); // an IPv6 literal needs its brackets
    }
    if (host.isEmpty() || !host.matches("[A-Za-z0-9._:-]+")) {
      throw invalid(value);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw invalid(value);
    }
    if (port < 1 || port > 65535) {
      throw invalid(value);
    }
    return new DebugAddress(host, port);
  }

  private static TypeConversionException invalid(String value) {
    return new TypeConversionException(
        "'" + value + "' is not HOST:PORT (for example 127.0.0.1:9902 or [::1]:9902)");
  }
}
