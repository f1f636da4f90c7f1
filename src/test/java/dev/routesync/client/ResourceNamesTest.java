package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.ServeHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code get} takes a resource's singular, plural and short names, as kubectl does: each name
 * prints what the command's own name prints.
 */
@Timeout(60)
class ResourceNamesTest {

  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 2);
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
  }

  private static Cli.Result run(String args) {
    return Cli.run((args + " --socket " + serve.socket()).split(" "));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          services           | service
          services           | svc
          endpoints shop/cart | endpoint shop/cart
          endpoints shop/cart | ep shop/cart
          clients            | client
          """)
  void everyNameOfAResourcePrintsWhatItsCommandNamePrints(String command, String alias) {
    Cli.Result expected = run("get " + command);
    Cli.Result aliased = run("get " + alias);

    assertThat(aliased.err()).isEqualTo(expected.err());
    assertThat(aliased.exitCode()).isEqualTo(expected.exitCode()).isZero();
    assertThat(aliased.out()).isEqualTo(expected.out());
  }
}
