package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad arguments are usage errors: one line naming the problem, exit code 2, no call made. */
class UsageTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          get endpoints shop                | expected NAME -n NAMESPACE or NAMESPACE/NAME, got 'shop' (see 'routesync get endpoints --help')
          get endpoints a/b/c               | expected NAME -n NAMESPACE or NAMESPACE/NAME, got 'a/b/c' (see 'routesync get endpoints --help')
          get endpoints Shop/cart           | 'Shop/cart' is not NAMESPACE/NAME with two valid names (lower-case DNS labels) (see 'routesync get endpoints --help')
          get endpoints shop/               | 'shop/' is not NAMESPACE/NAME with two valid names (lower-case DNS labels) (see 'routesync get endpoints --help')
          get endpoints Cart -n shop        | 'Cart' is not a valid Service name (lower-case DNS label) (see 'routesync get endpoints --help')
          get endpoints cart -n Shop        | -n: 'Shop' is not a valid namespace name (see 'routesync get endpoints --help')
          get endpoints shop/cart -n other  | 'shop/cart' is in namespace shop, but -n says other (see 'routesync get endpoints --help')
          get endpoints                     | Missing required parameter: '[NAMESPACE/]NAME' (see 'routesync get endpoints --help')
          get endpoints -n shop             | Missing required parameter: '[NAMESPACE/]NAME' (see 'routesync get endpoints --help')
          get services --namespace a_b      | -n: 'a_b' is not a valid namespace name (see 'routesync get services --help')
          get services -n Shop      | -n: 'Shop' is not a valid namespace name (see 'routesync get services --help')
          watch -n a_b              | -n: 'a_b' is not a valid namespace name (see 'routesync watch --help')
          get services -o yaml      | Invalid value for option '--output': expected table or json, got 'yaml' (see 'routesync get services --help')
          get                       | Missing required subcommand (see 'routesync get --help')
          """)
  void printsOneLineAndExitsWithTwo(String args, String message) {
    Cli.Result result = Cli.run(args.split(" +"));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("routesync: " + message + "\n");
  }
}
