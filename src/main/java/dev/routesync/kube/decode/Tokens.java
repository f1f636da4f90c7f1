package dev.routesync.kube.decode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * Reads one JSON value at the parser's current token the way Jackson's data binding reads it into
 * fabric8's model, for the shapes the API server writes. Any other shape (a number where a string
 * belongs, a float port) throws {@link NotDecoded}, and the caller hands the whole document to
 * fabric8's own deserialization, which decides what it means: the fast path never guesses.
 */
final class Tokens {

  private Tokens() {}

  /** Reads the fields of the object at the current token ({@code START_OBJECT}) in order. */
  interface Fields {

    /**
     * The value of field {@code name} is the current token; read all of it. Returns false for a
     * field this reader does not keep, which is then skipped.
     */
    boolean field(String name, JsonParser parser);
  }

  /** Reads one value at the current token. */
  interface Value<T> {
    T read(JsonParser parser);
  }

  static void object(JsonParser parser, Fields fields) {
    expect(parser, JsonToken.START_OBJECT);
    String name;
    while ((name = parser.nextName()) != null) {
      parser.nextToken();
      if (!fields.field(name, parser)) {
        parser.skipChildren();
      }
    }
    expect(parser, JsonToken.END_OBJECT);
  }

  /** An object read into a new instance, or null for JSON null. */
  static <T> T object(JsonParser parser, T into, Fields fields) {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return null;
    }
    object(parser, fields);
    return into;
  }

  static String string(JsonParser parser) {
    return switch (parser.currentToken()) {
      case VALUE_STRING -> parser.getString();
      case VALUE_NULL -> null;
      default -> throw NotDecoded.INSTANCE;
    };
  }

  static Integer integer(JsonParser parser) {
    return switch (parser.currentToken()) {
      case VALUE_NUMBER_INT -> {
        if (parser.getNumberType() != JsonParser.NumberType.INT) {
          throw NotDecoded.INSTANCE;
        }
        yield parser.getIntValue();
      }
      case VALUE_NULL -> null;
      default -> throw NotDecoded.INSTANCE;
    };
  }

  static Long longValue(JsonParser parser) {
    return switch (parser.currentToken()) {
      case VALUE_NUMBER_INT -> {
        JsonParser.NumberType type = parser.getNumberType();
        if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
          throw NotDecoded.INSTANCE;
        }
        yield parser.getLongValue();
      }
      case VALUE_NULL -> null;
      default -> throw NotDecoded.INSTANCE;
    };
  }

  static Boolean bool(JsonParser parser) {
    return switch (parser.currentToken()) {
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      default -> throw NotDecoded.INSTANCE;
    };
  }

  static List<String> strings(JsonParser parser) {
    return list(parser, Tokens::string);
  }

  /** A JSON array as a mutable list (as data binding makes it), or null for JSON null. */
  static <T> List<T> list(JsonParser parser, Value<T> element) {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(parser, JsonToken.START_ARRAY);
    List<T> list = new ArrayList<>();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      list.add(element.read(parser));
    }
    return list;
  }

  /** A JSON object of strings as a mutable map in document order, or null for JSON null. */
  static Map<String, String> stringMap(JsonParser parser) {
    if (parser.currentToken() == JsonToken.VALUE_NULL) {
      return null;
    }
    Map<String, String> map = new LinkedHashMap<>();
    object(
        parser,
        (name, value) -> {
          map.put(name, string(value));
          return true;
        });
    return map;
  }

  static void expect(JsonParser parser, JsonToken token) {
    if (parser.currentToken() != token) {
      throw NotDecoded.INSTANCE;
    }
  }
}
