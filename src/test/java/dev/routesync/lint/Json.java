package dev.routesync.lint;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reads the JSON and SARIF that lint prints, so tests assert on fields, not on whitespace. */
final class Json {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private Json() {}

  static JsonNode parse(String text) {
    return MAPPER.readTree(text);
  }

  static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asString()));
    return values;
  }
}
