package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.config.FlagConverters.HostPortConverter;
import dev.routesync.config.FlagConverters.NamespaceListConverter;
import dev.routesync.config.FlagConverters.OptionalPathConverter;
import dev.routesync.config.FlagConverters.SourceConverter;
import dev.routesync.config.FlagConverters.TrimmedConverter;
import dev.routesync.config.FlagTypes.DurationConverter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

/** Each converter alone: text in, a typed value or a one-line syntax error out. */
class FlagConvertersTest {

  @Test
  void durationsUseTheFlagSyntax() {
    DurationConverter converter = new DurationConverter();

    assertThat(converter.convert("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(converter.convert(" 5m ")).isEqualTo(Duration.ofMinutes(5));
    assertThat(converter.convert("0")).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"banana", "10", "-1s", "1.5s", "PT10S", ""})
  void aMalformedDurationIsATypeConversionError(String text) {
    assertThatThrownBy(() -> new DurationConverter().convert(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessage("'" + text + "' is not a duration (expected e.g. 0, 250ms, 10s, 5m, 1h)");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          endpointslices      | ENDPOINTSLICES
          EndpointSlices      | ENDPOINTSLICES
          '  endpoints  '     | ENDPOINTS
          ENDPOINTS           | ENDPOINTS
          """)
  void sourcesAreMatchedInAnyCase(String text, Source expected) {
    assertThat(new SourceConverter().convert(text)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"pods", "endpointslice", "", "endpoints,endpointslices"})
  void anUnknownSourceNamesTheChoices(String text) {
    assertThatThrownBy(() -> new SourceConverter().convert(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessage("expected endpointslices or endpoints, got '" + text + "'");
  }

  @Test
  void theSourceFlagNamesAreTheLowerCaseConstants() {
    assertThat(Source.ENDPOINTSLICES.flagName()).isEqualTo("endpointslices");
    assertThat(Source.of(Source.ENDPOINTS.flagName())).isEqualTo(Source.ENDPOINTS);
  }

  @Test
  void textIsTrimmed() {
    assertThat(new TrimmedConverter().convert("  team = a ")).isEqualTo("team = a");
  }

  @Test
  void aBlankPathIsNone() {
    OptionalPathConverter converter = new OptionalPathConverter();

    assertThat(converter.convert("")).isNull();
    assertThat(converter.convert("   ")).isNull();
    assertThat(converter.convert("/etc/kubeconfig")).isEqualTo(Path.of("/etc/kubeconfig"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          shop                    | shop
          shop,payments           | shop,payments
          ' shop , payments ,'    | shop,payments
          ',,shop,,'              | shop
          shop,payments,shop      | shop,payments,shop
          """)
  void namespacesAreSplitOnCommasWithBlanksDropped(String text, String expected) {
    // Repeats are kept here: dropping them is WatchSettings' rule, whoever builds it.
    assertThat(new NamespaceListConverter().convert(text).names())
        .containsExactlyElementsOf(List.of(expected.split(",")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", ",", " , "})
  void noNamespacesMeansAll(String text) {
    assertThat(new NamespaceListConverter().convert(text).names()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          127.0.0.1:9465          | 127.0.0.1       | 9465
          ' 127.0.0.1:9465 '      | 127.0.0.1       | 9465
          localhost:0             | 127.0.0.1       | 0
          [::1]:9465              | 0:0:0:0:0:0:0:1 | 9465
          ::1:9465                | 0:0:0:0:0:0:0:1 | 9465
          10.1.2.3:65535          | 10.1.2.3        | 65535
          0.0.0.0:1               | 0.0.0.0         | 1
          """)
  void hostPortTakesIpLiteralsAndLocalhost(String text, String host, int port) {
    // Any literal parses: whether it is a loopback one is AgentConfig's rule.
    InetSocketAddress address = new HostPortConverter().convert(text);

    assertThat(address.getAddress().getHostAddress()).isEqualTo(host);
    assertThat(address.getPort()).isEqualTo(port);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   "})
  void aBlankHostPortIsNone(String text) {
    assertThat(new HostPortConverter().convert(text)).isNull();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          9465                    | expected HOST:PORT (e.g. 127.0.0.1:9465), got '9465'
          :9465                   | expected HOST:PORT (e.g. 127.0.0.1:9465), got ':9465'
          127.0.0.1:99999         | port must be between 0 and 65535, got 99999
          127.0.0.1:-1            | port must be between 0 and 65535, got -1
          127.0.0.1:http          | port 'http' is not a whole number
          127.0.0.1:              | port '' is not a whole number
          example.com:9465        | 'example.com' is not an IP literal or localhost
          localhost.:9465         | 'localhost.' is not an IP literal or localhost
          999.1.1.1:9465          | '999.1.1.1' is not an IP literal or localhost
          127.1:9465              | '127.1' is not an IP literal or localhost
          [::1:9465               | '[::1' is not an IP literal or localhost
          [fe80::zz]:9465         | 'fe80::zz' is not an IP literal or localhost
          """)
  void aMalformedHostPortSaysWhatIsWrong(String text, String message) {
    // Names and malformed literals are refused before any lookup: no DNS at start.
    assertThatThrownBy(() -> new HostPortConverter().convert(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessage(message);
  }
}
