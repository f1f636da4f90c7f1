package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DriftTableTest {

  private static final Instant NOW = Instant.parse("2026-09-17T14:29:00Z");

  @Test
  void oneRowPerDriftInKubectlColumns() {
    JsonObject body =
        new JsonObject()
            .put("detector", "on")
            .put(
                "drift",
                new JsonArray()
                    .add(
                        new JsonObject()
                            .put("namespace", "shop")
                            .put("service", "quote")
                            .put("port", "http")
                            .put("pod", "quote-7d9f-abcde")
                            .put("reason", "NamedPortNotFound")
                            .put("since", "2026-09-17T14:10:00Z")
                            .put("message", "ignored by the table"))
                    .add(
                        new JsonObject()
                            .put("namespace", "shop")
                            .put("service", "quote")
                            .put("port", "")
                            .put("pod", "quote-2")
                            .put("reason", "NotInEndpoints")
                            .put("since", "2026-09-17T14:28:15Z")));

    assertThat(DriftTable.render(body, NOW))
        .isEqualTo(
            "NAMESPACE   SERVICE   PORT     POD                REASON              AGE\n"
                + "shop        quote     http     quote-7d9f-abcde   NamedPortNotFound   19m\n"
                + "shop        quote     <none>   quote-2            NotInEndpoints      45s\n");
  }

  @ParameterizedTest
  @CsvSource({
    "2026-09-17T14:28:59Z, 1s",
    "2026-09-17T14:27:01Z, 119s",
    "2026-09-17T14:26:30Z, 2m30s",
    "2026-09-17T14:19:00Z, 10m",
    "2026-09-17T11:29:00Z, 3h",
    "2026-09-17T09:19:00Z, 5h10m",
    "2026-09-16T08:29:00Z, 30h",
    "2026-09-14T12:29:00Z, 3d2h",
    "2026-08-17T14:29:00Z, 31d",
    "2026-09-17T14:30:00Z, 0s",
    "garbage, ''"
  })
  void ageIsKubectls(String since, String age) {
    assertThat(DriftTable.age(since, NOW)).isEqualTo(age);
  }
}
