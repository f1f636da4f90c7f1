package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad arguments are usage errors: one line naming the problem, exit code 2, no call made. A name
 * that breaks Kubernetes' rule gets the message the agent's APIs give (see {@code
 * dev.routesync.testing.NameRule}).
 */
class UsageTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          get endpoints shop                | expected NAME -n NAMESPACE or NAMESPACE/NAME, got 'shop' (see 'routesync get endpoints --help')
          get endpoints a/b/c               | Service "a/b/c": must be namespace/name, two names joined by one '/' (see 'routesync get endpoints --help')
          get endpoints Shop/cart           | namespace "Shop": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit) (see 'routesync get endpoints --help')
          get endpoints shop/               | Service name "": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit) (see 'routesync get endpoints --help')
          get endpoints Cart -n shop        | Service name "Cart": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit) (see 'routesync get endpoints --help')
          get endpoints cart -n Shop        | namespace "Shop": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit) (see 'routesync get endpoints --help')
          get endpoints shop/cart -n other  | 'shop/cart' is in namespace shop, but -n says other (see 'routesync get endpoints --help')
          get endpoints                     | Missing required parameter: '[NAMESPACE/]NAME' (see 'routesync get endpoints --help')
          get endpoints -n shop             | Missing required parameter: '[NAMESPACE/]NAME' (see 'routesync get endpoints --help')
          get services --namespace a_b      | namespace "a_b": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit) (see 'routesync get services --help')
          get services -n Shop              | namespace "Shop": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit) (see 'routesync get services --help')
          watch -n a_b                      | namespace "a_b": must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit) (see 'routesync watch --help')
          get services -o xml       | Invalid value for option '--output': expected one of [TABLE, TEXT, WIDE, JSON, YAML, NAME] (case-insensitive) but was 'xml' (see 'routesync get services --help')
          get status -o name        | -o name is not available on 'routesync get status'; expected one of [table, text, wide, json, yaml] (see 'routesync get status --help')
          watch -o yaml             | -o yaml is not available on 'routesync watch'; expected one of [table, text, wide, json] (see 'routesync watch --help')
          get                       | Missing required subcommand (see 'routesync get --help')
          """)
  void printsOneLineAndExitsWithTwo(String args, String message) {
    Cli.Result result = Cli.run(args.split(" +"));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.out()).isEmpty();
    assertThat(result.err()).isEqualTo("routesync: " + message + "\n");
  }
}
