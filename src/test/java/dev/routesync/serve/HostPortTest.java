package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the debug listener takes for a loopback {@code Host}, and for its own origin: names no DNS
 * server answers for, literals parsed strictly, and nothing resolved.
 */
class HostPortTest {

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          localhost                 | loopback
          localhost:9902            | loopback
          LOCALHOST:8080            | loopback
          127.0.0.1                 | loopback
          127.0.0.1:9902            | loopback
          127.255.0.7:1             | loopback
          [::1]                     | loopback
          [::1]:9902                | loopback
          [0:0:0:0:0:0:0:1]:9902    | loopback
          [::ffff:127.0.0.1]:9902   | loopback
          evil.example              | not loopback
          evil.example:9902         | not loopback
          localhost.evil.example    | not loopback
          127.0.0.1.evil.example    | not loopback
          localhost.                | not loopback
          10.0.0.1:9902             | not loopback
          128.0.0.1                 | not loopback
          0.0.0.0:9902              | not loopback
          [::]:9902                 | not loopback
          [::2]                     | not loopback
          127.1                     | not loopback
          127.0.0.256               | not loopback
          0x7f.0.0.1                | not loopback
          [beef]                    | no host
          [::1%lo]                  | no host
          [::1                      | no host
          localhost:                | no host
          localhost:65536           | no host
          localhost:99999999        | no host
          localhost:80:80           | no host
          localhost:+80             | no host
          user@localhost            | no host
          local host                | no host
          ''                        | no host
          """)
  void aHostIsLoopbackOnlyByAnAddressOrTheNameLocalhost(String text, String expected) {
    Optional<HostPort> host = HostPort.parse(text);
    String verdict =
        host.isEmpty() ? "no host" : host.get().isLoopback() ? "loopback" : "not loopback";
    assertThat(verdict).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} from {1}: {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          127.0.0.1:9902 | http://127.0.0.1:9902  | same
          localhost:8080 | http://localhost:8080  | same
          LocalHost:8080 | HTTP://localhost:8080  | same
          localhost      | http://localhost       | same
          localhost:80   | http://localhost       | same
          [::1]:9902     | http://[::1]:9902      | same
          127.0.0.1:9902 | http://localhost:9902  | other
          127.0.0.1:9902 | http://127.0.0.1:3000  | other
          127.0.0.1:9902 | https://127.0.0.1:9902 | other
          127.0.0.1:9902 | http://127.0.0.1:9902/ | other
          127.0.0.1:9902 | http://evil.example    | other
          127.0.0.1:9902 | null                   | other
          """)
  void anOriginIsTheListenersOwnOnlyWithTheRequestsHostAndPort(
      String host, String origin, String expected) {
    HostPort requested = HostPort.parse(host).orElseThrow();
    boolean same = HostPort.ofHttpOrigin(origin).map(requested::sameHostAndPort).orElse(false);
    assertThat(same ? "same" : "other").isEqualTo(expected);
  }
}
