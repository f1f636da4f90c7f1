package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StatusMessagesTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          agent%20is%20shutting%20down | agent is shutting down
          a+b                          | a+b
          100%25                       | 100%
          caf%C3%A9                    | café
          50%                          | 50%
          %zz%2                        | %zz%2
          déjà vu                      | déjà vu
          """)
  void percentDecodesAsTheGrpcSpecSays(String encoded, String decoded) {
    assertThat(StatusMessages.percentDecoded(encoded)).isEqualTo(decoded);
  }
}
