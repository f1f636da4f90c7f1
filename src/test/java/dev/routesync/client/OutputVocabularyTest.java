package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.testing.ServeHarness;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code -o} takes kubectl's words on every {@code get}: {@code json} and {@code yaml} print the
 * same document, {@code name} prints {@code kind/name} per line, and the help and a refusal list
 * the words.
 */
@Timeout(60)
class OutputVocabularyTest {

  @Test
  void yamlIsTheJsonDocumentsFields() throws Exception {
    try (ServeHarness serve = new ServeHarness()) {
      serve.put("shop", "cart", 2);
      String socket = serve.socket().toString();

      for (String[] get :
          new String[][] {
            {"get", "services"}, {"get", "endpoints", "shop/cart"}, {"get", "status"}
          }) {
        Cli.Result json = Cli.run(concat(get, "-o", "json", "--socket", socket));
        Cli.Result yaml = Cli.run(concat(get, "-o", "yaml", "--socket", socket));

        assertThat(yaml.exitCode()).as(yaml.err()).isZero();
        assertThat(yaml.out()).doesNotStartWith("{");
        assertThat(Serialization.unmarshal(yaml.out(), Map.class))
            .as(String.join(" ", get))
            .isEqualTo(new JsonObject(json.out()).getMap());
      }
    }
  }

  @Test
  void nameIsKindSlashNamePerLine() throws Exception {
    try (ServeHarness serve = new ServeHarness()) {
      serve.put("shop", "cart", 2);
      serve.put("shop", "quote", 1);
      String socket = serve.socket().toString();

      Cli.Result services = Cli.run("get", "svc", "-n", "shop", "-o", "name", "--socket", socket);
      Cli.Result endpoints =
          Cli.run("get", "ep", "cart", "-n", "shop", "-o", "NAME", "--socket", socket);

      assertThat(services.exitCode()).as(services.err()).isZero();
      assertThat(services.out()).isEqualTo("service/cart\nservice/quote\n");
      assertThat(endpoints.out()).isEqualTo("endpoints/cart\n");
    }
  }

  @Test
  void helpListsTheFormats() {
    assertThat(Cli.run("get", "services", "--help").out())
        .contains("table, text, wide, json, yaml, name (default: table");
    assertThat(Cli.run("get", "drift", "--help").out())
        .contains("table, text, wide, json, yaml, name (default: table");
    assertThat(Cli.run("lint", "--help").out().replaceAll("\\s+", " "))
        .contains("text, table, json, yaml, name, sarif, github (default: text")
        .contains("error, warning, none (default: error)");
    assertThat(Cli.run("gate", "--help").out())
        .contains("text, table, json, yaml, name (default: text");
  }

  private static String[] concat(String[] first, String... rest) {
    String[] all = java.util.Arrays.copyOf(first, first.length + rest.length);
    System.arraycopy(rest, 0, all, first.length, rest.length);
    return all;
  }
}
