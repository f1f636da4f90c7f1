package dev.routesync.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks label selector syntax at start, so a typo is one clear error instead of an endless loop of
 * 400s from the API server. Accepts Kubernetes' set-based grammar: {@code k}, {@code !k}, {@code
 * k=v}, {@code k==v}, {@code k!=v}, {@code k>1}, {@code k<1}, {@code k in (a,b)}, {@code k notin
 * (a,b)}, joined by commas; and accepts only what the API server's parser ({@code labels.Parse})
 * takes, which a differential fuzz test holds it to:
 *
 * <ul>
 *   <li>whitespace is only ' ', '\t', '\r' and '\n' (Java's {@code trim()} and {@code \s} take
 *       more: a stray control character was dropped here and refused there);
 *   <li>a key's optional prefix is a DNS-1123 subdomain of at most 253 characters;
 *   <li>the value of {@code >} and {@code <} is a label value that is a 64-bit integer: digits
 *       only.
 * </ul>
 */
public final class LabelSelectors {

  // The API server's lexer's whitespace (isWhitespace in k8s.io/apimachinery/pkg/labels).
  private static final String WS = "[ \\t\\r\\n]";
  private static final String NAME = "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?";
  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  // A DNS-1123 subdomain and its '/': the lookahead bounds the length before the parts are tried.
  private static final String PREFIX =
      "(?=[-a-z0-9.]{1,253}/)" + DNS_LABEL + "(\\." + DNS_LABEL + ")*/";
  private static final String KEY = "(" + PREFIX + ")?" + NAME;
  private static final String VALUE = "(" + NAME + ")?";
  private static final Pattern REQUIREMENT =
      Pattern.compile(
          "!?"
              + WS
              + "*"
              + KEY
              + "|"
              + KEY
              + WS
              + "*(=|==|!=)"
              + WS
              + "*"
              + VALUE
              + "|"
              + KEY
              + WS
              + "*[<>]"
              + WS
              + "*(?<number>[0-9]{1,63})"
              + "|"
              + KEY
              + WS
              + "+(in|notin)"
              + WS
              + "*\\((?<list>[^()]*)\\)");
  private static final Pattern LIST_VALUE = Pattern.compile(VALUE);

  private LabelSelectors() {}

  /** Throws {@link IllegalArgumentException} naming the first bad requirement. */
  static void validate(String selector) {
    validate("--label-selector", selector);
  }

  /**
   * As {@link #validate(String)}, the message starting with {@code flag} ({@code routesync gate -l}
   * checks its selector with it).
   */
  public static void validate(String flag, String selector) {
    for (String requirement : splitTopLevel(selector)) {
      String trimmed = strip(requirement);
      Matcher matcher = REQUIREMENT.matcher(trimmed);
      if (!matcher.matches()
          || !int64(matcher.group("number"))
          || !valueList(matcher.group("list"))) {
        throw new IllegalArgumentException(
            flag + ": '" + trimmed + "' is not a valid label selector requirement");
      }
    }
  }

  private static String strip(String text) {
    int start = 0;
    int end = text.length();
    while (start < end && whitespace(text.charAt(start))) {
      start++;
    }
    while (end > start && whitespace(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(start, end);
  }

  private static boolean whitespace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  // A > or < requirement's number fits strconv.ParseInt(v, 10, 64); other requirements have none.
  private static boolean int64(String number) {
    if (number == null) {
      return true;
    }
    try {
      Long.parseLong(number);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * The inside of an in/notin's parentheses, as the API server's {@code parseValues} and {@code
   * parseIdentifiersList} take it, quirks included: empty values come only from particular runs of
   * commas ({@code (a,)} passes, {@code (a,,)} does not), which no regular expression of values and
   * commas says (the differential fuzz test found {@code c notin (c,,,,,,,,)} passing here). {@code
   * null} (not an in/notin) passes.
   */
  private static boolean valueList(String list) {
    if (list == null) {
      return true;
    }
    List<String> tokens = new ArrayList<>();
    int i = 0;
    while (i < list.length()) {
      char c = list.charAt(i);
      if (whitespace(c)) {
        i++;
      } else if (c == ',') {
        tokens.add(",");
        i++;
      } else {
        int start = i;
        while (i < list.length() && !whitespace(list.charAt(i)) && list.charAt(i) != ',') {
          i++;
        }
        String value = list.substring(start, i);
        if (!LIST_VALUE.matcher(value).matches()) {
          return false; // an operator character, or not a label value
        }
        tokens.add(value);
      }
    }
    tokens.add(")");
    if (tokens.size() == 1) {
      return true; // "()"
    }
    int at = 0;
    while (true) {
      String token = tokens.get(at++);
      if (token.equals(")")) {
        return false; // parseIdentifiersList consumed a ')' where it wanted ',' or a value
      }
      String next = tokens.get(at);
      if (!token.equals(",")) {
        if (next.equals(",")) {
          continue;
        }
        break; // next is ')': parseValues consumes it below
      }
      if (next.equals(")")) {
        break;
      }
      if (next.equals(",")) {
        at++;
      }
    }
    // parseValues then consumes the ')', which must be the last token.
    return at == tokens.size() - 1;
  }

  // Commas separate requirements, except inside the parentheses of in/notin.
  private static List<String> splitTopLevel(String selector) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < selector.length(); i++) {
      char c = selector.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(selector.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(selector.substring(start));
    return parts;
  }
}
