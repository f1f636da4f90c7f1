package dev.routesync.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A reference for {@link LabelSelectors}: the API server's own reading of a label selector ({@code
 * labels.Parse} in {@code k8s.io/apimachinery/pkg/labels/selector.go}), re-implemented from its
 * lexer, parser and {@code NewRequirement} checks, for a differential fuzz test. It answers only
 * whether the API server would accept the text.
 *
 * <p>Its lexer works on bytes and stops at a NUL (Go's {@code read()} returns 0 past the end, and
 * the lexer cannot tell the two apart); whitespace is exactly ' ', '\t', '\r', '\n'.
 */
final class KubernetesSelectorParser {

  private enum Token {
    ERROR,
    END,
    CLOSED_PAR,
    COMMA,
    NOT,
    DOUBLE_EQUALS,
    EQUALS,
    GREATER,
    IDENTIFIER,
    IN,
    LESS,
    NOT_EQUALS,
    NOT_IN,
    OPEN_PAR
  }

  private record Item(Token token, String literal) {}

  private static final Pattern DNS_1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern QUALIFIED_NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  private final byte[] text;
  private int pos;
  private final List<Item> items = new ArrayList<>();
  private int position;

  private KubernetesSelectorParser(byte[] text) {
    this.text = text;
  }

  /** Whether the API server would parse {@code selector} (as its UTF-8 bytes). */
  static boolean accepts(String selector) {
    KubernetesSelectorParser parser =
        new KubernetesSelectorParser(selector.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    parser.scan();
    return parser.parse();
  }

  // --- lexer ---

  private int read() {
    return pos < text.length ? text[pos++] & 0xff : 0;
  }

  private void unread() {
    pos--;
  }

  private static boolean whitespace(int c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  private static boolean special(int c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
  }

  private static Token keyword(String s) {
    return switch (s) {
      case ")" -> Token.CLOSED_PAR;
      case "," -> Token.COMMA;
      case "!" -> Token.NOT;
      case "==" -> Token.DOUBLE_EQUALS;
      case "=" -> Token.EQUALS;
      case ">" -> Token.GREATER;
      case "in" -> Token.IN;
      case "<" -> Token.LESS;
      case "!=" -> Token.NOT_EQUALS;
      case "notin" -> Token.NOT_IN;
      case "(" -> Token.OPEN_PAR;
      default -> null;
    };
  }

  private Item lex() {
    int c = read();
    while (whitespace(c)) {
      c = read();
    }
    if (c == 0) {
      return new Item(Token.END, "");
    }
    unread();
    if (special(c)) {
      StringBuilder buffer = new StringBuilder();
      Item last = null;
      while (true) {
        int ch = read();
        if (ch == 0) {
          break;
        }
        if (!special(ch)) {
          unread();
          break;
        }
        buffer.append((char) ch);
        Token token = keyword(buffer.toString());
        if (token != null) {
          last = new Item(token, buffer.toString());
        } else if (last != null) {
          unread();
          break;
        }
      }
      return last == null ? new Item(Token.ERROR, buffer.toString()) : last;
    }
    java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
    while (true) {
      int ch = read();
      if (ch == 0) {
        break;
      }
      if (special(ch) || whitespace(ch)) {
        unread();
        break;
      }
      buffer.write(ch);
    }
    String s = buffer.toString(java.nio.charset.StandardCharsets.UTF_8);
    // Go compares the bytes; a byte sequence that is no valid UTF-8 is no keyword either.
    Token token = keyword(s);
    return token != null ? new Item(token, s) : new Item(Token.IDENTIFIER, s);
  }

  private void scan() {
    while (true) {
      Item item = lex();
      items.add(item);
      if (item.token() == Token.END) {
        return;
      }
    }
  }

  // --- parser ---

  /** In a value context "in" and "notin" are identifiers. */
  private Token lookahead(boolean values) {
    return adjust(items.get(position).token(), values);
  }

  private Item consume(boolean values) {
    Item item = items.get(position++);
    return new Item(adjust(item.token(), values), item.literal());
  }

  private static Token adjust(Token token, boolean values) {
    return values && (token == Token.IN || token == Token.NOT_IN) ? Token.IDENTIFIER : token;
  }

  private boolean parse() {
    while (true) {
      Token token = lookahead(true);
      if (token == Token.END) {
        return true;
      }
      if (token != Token.IDENTIFIER && token != Token.NOT) {
        return false;
      }
      if (!requirement()) {
        return false;
      }
      Token after = consume(true).token();
      if (after == Token.END) {
        return true;
      }
      if (after != Token.COMMA) {
        return false;
      }
      Token next = lookahead(true);
      if (next != Token.IDENTIFIER && next != Token.NOT) {
        return false;
      }
    }
  }

  private boolean requirement() {
    Item item = consume(true);
    boolean doesNotExist = false;
    if (item.token() == Token.NOT) {
      doesNotExist = true;
      item = consume(true);
    }
    if (item.token() != Token.IDENTIFIER || !qualifiedName(item.literal())) {
      return false;
    }
    Token next = lookahead(true);
    if (doesNotExist || next == Token.END || next == Token.COMMA) {
      return true; // exists / does not exist: no values
    }
    Token operator = consume(false).token();
    List<String> values = new ArrayList<>();
    switch (operator) {
      case IN, NOT_IN -> {
        if (!values(values)) {
          return false;
        }
      }
      case EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER, LESS -> {
        Token value = lookahead(true);
        if (value == Token.END || value == Token.COMMA) {
          values.add("");
        } else {
          Item literal = consume(true);
          if (literal.token() != Token.IDENTIFIER) {
            return false;
          }
          values.add(literal.literal());
        }
      }
      default -> {
        return false;
      }
    }
    if (values.isEmpty()) {
      return false;
    }
    if (operator == Token.GREATER || operator == Token.LESS) {
      if (values.size() != 1 || !int64(values.get(0))) {
        return false;
      }
    }
    return values.stream().allMatch(KubernetesSelectorParser::labelValue);
  }

  private boolean values(List<String> values) {
    if (consume(true).token() != Token.OPEN_PAR) {
      return false;
    }
    Token token = lookahead(true);
    if (token == Token.CLOSED_PAR) {
      consume(true);
      values.add("");
      return true;
    }
    if (token != Token.IDENTIFIER && token != Token.COMMA) {
      return false;
    }
    java.util.Set<String> set = new java.util.LinkedHashSet<>();
    while (true) {
      Item item = consume(true);
      if (item.token() == Token.IDENTIFIER) {
        set.add(item.literal());
        Token next = lookahead(true);
        if (next == Token.COMMA) {
          continue;
        }
        if (next == Token.CLOSED_PAR) {
          break;
        }
        return false;
      } else if (item.token() == Token.COMMA) {
        if (set.isEmpty()) {
          set.add("");
        }
        Token next = lookahead(true);
        if (next == Token.CLOSED_PAR) {
          set.add("");
          break;
        }
        if (next == Token.COMMA) {
          consume(true);
          set.add("");
        }
      } else {
        return false;
      }
    }
    if (consume(true).token() != Token.CLOSED_PAR) {
      return false;
    }
    values.addAll(set);
    return true;
  }

  // --- validation (k8s.io/apimachinery/pkg/util/validation) ---

  private static boolean qualifiedName(String key) {
    String[] parts = key.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      if (prefix.isEmpty()
          || prefix.length() > 253
          || !DNS_1123_SUBDOMAIN.matcher(prefix).matches()) {
        return false;
      }
      name = parts[1];
    } else {
      return false;
    }
    return !name.isEmpty() && name.length() <= 63 && QUALIFIED_NAME_PART.matcher(name).matches();
  }

  private static boolean labelValue(String value) {
    return value.length() <= 63 && LABEL_VALUE.matcher(value).matches();
  }

  // strconv.ParseInt(s, 10, 64): an optional sign, decimal digits, in range.
  private static boolean int64(String value) {
    if (!value.matches("[+-]?[0-9]+")) {
      return false;
    }
    try {
      Long.parseLong(value.startsWith("+") ? value.substring(1) : value);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
