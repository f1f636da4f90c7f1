package dev.routesync.config;

import dev.routesync.logs.LogFormat;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How the text of a flag (or of its environment variable) becomes a typed value: syntax only. What
 * a well-formed value may be (ranges, loopback, name rules) is checked once, by the record that
 * holds it. picocli reports a failure as {@code Invalid value for option '--debounce': ...}.
 */
final class FlagConverters {

  private FlagConverters() {}

  /** {@code endpointslices} or {@code endpoints}, in any case. */
  static final class SourceConverter implements ITypeConverter<Source> {
    @Override
    public Source convert(String text) {
      try {
        return Source.of(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  static final class LogFormatConverter implements ITypeConverter<LogFormat> {
    @Override
    public LogFormat convert(String text) {
      try {
        return LogFormat.of(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** The text without surrounding blanks (a value pasted into a ConfigMap often has some). */
  static final class TrimmedConverter implements ITypeConverter<String> {
    @Override
    public String convert(String text) {
      return text.trim();
    }
  }

  /**
   * A path, or none for a blank value: on an {@code Optional<Path>} field picocli turns the null
   * into {@code Optional.empty()}.
   */
  static final class OptionalPathConverter implements ITypeConverter<Path> {
    @Override
    public Path convert(String text) {
      return text.isBlank() ? null : Path.of(text);
    }
  }

  /** The {@code --namespace} value: names separated by commas, blanks dropped; empty means all. */
  record NamespaceList(List<String> names) {
    NamespaceList {
      names = List.copyOf(names);
    }
  }

  static final class NamespaceListConverter implements ITypeConverter<NamespaceList> {
    @Override
    public NamespaceList convert(String text) {
      return new NamespaceList(
          Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
    }
  }

  /** The {@code --allow-uids} / {@code --allow-gids} value: numbers separated by commas. */
  record IdList(List<Integer> ids) {
    IdList {
      ids = List.copyOf(ids);
    }
  }

  static final class IdListConverter implements ITypeConverter<IdList> {
    @Override
    public IdList convert(String text) {
      List<Integer> ids = new java.util.ArrayList<>();
      for (String part : text.split(",")) {
        String id = part.trim();
        if (id.isEmpty()) {
          continue;
        }
        try {
          ids.add(Integer.parseUnsignedInt(id));
        } catch (NumberFormatException e) {
          throw new TypeConversionException("'" + id + "' is not a numeric id (0 to 2147483647)");
        }
        if (ids.get(ids.size() - 1) < 0) {
          throw new TypeConversionException("'" + id + "' is not a numeric id (0 to 2147483647)");
        }
      }
      return new IdList(ids);
    }
  }

  /**
   * {@code HOST:PORT}, the host an IP literal ({@code 127.0.0.1}, {@code [::1]}) or {@code
   * localhost}, never looked up in DNS at start; none for a blank value (as {@link
   * OptionalPathConverter}). Whether the address is a loopback one is {@link AgentConfig}'s rule.
   */
  static final class HostPortConverter implements ITypeConverter<InetSocketAddress> {
    @Override
    public InetSocketAddress convert(String text) {
      String trimmed = text.trim();
      if (trimmed.isEmpty()) {
        return null;
      }
      int colon = trimmed.lastIndexOf(':');
      if (colon <= 0) {
        throw new TypeConversionException(
            "expected HOST:PORT (e.g. 127.0.0.1:9465), got '" + text + "'");
      }
      String host = trimmed.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      return new InetSocketAddress(address(host), port(trimmed.substring(colon + 1)));
    }

    private static int port(String text) {
      int port;
      try {
        port = Integer.parseInt(text);
      } catch (NumberFormatException e) {
        throw new TypeConversionException("port '" + text + "' is not a whole number");
      }
      if (port < 0 || port > 65535) {
        throw new TypeConversionException("port must be between 0 and 65535, got " + port);
      }
      return port;
    }

    private static InetAddress address(String host) {
      if (host.equals("localhost")) {
        return InetAddress.getLoopbackAddress();
      }
      // Only literals, and only forms the JDK parses without a lookup: a name, or a malformed
      // literal such as 999.1.1.1, would be resolved through DNS at start, and could resolve
      // anywhere. In brackets, the JDK takes the text as IPv6 or refuses it.
      String literal = host.indexOf(':') >= 0 ? "[" + host + "]" : ipv4(host);
      if (literal != null) {
        try {
          return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
          // fall through: a malformed literal is as wrong as a name
        }
      }
      throw new TypeConversionException("'" + host + "' is not an IP literal or localhost");
    }

    private static String ipv4(String host) {
      String[] octets = host.split("\\.", -1);
      boolean dotted =
          octets.length == 4
              && Arrays.stream(octets)
                  .allMatch(o -> o.matches("\\d{1,3}") && Integer.parseInt(o) <= 255);
      return dotted ? host : null;
    }
  }
}
