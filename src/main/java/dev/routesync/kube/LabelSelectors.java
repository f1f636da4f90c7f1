package dev.routesync.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Checks label selector syntax at start, so a typo is one clear error instead of an endless loop of
 * 400s from the API server. Accepts Kubernetes' set-based grammar: {@code k}, {@code !k}, {@code
 * k=v}, {@code k==v}, {@code k!=v}, {@code k>1}, {@code k<1}, {@code k in (a,b)}, {@code k notin
 * (a,b)}, joined by commas.
 */
public final class LabelSelectors {

  private static final String NAME = "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?";
  private static final String KEY = "([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?" + NAME;
  private static final String VALUE = "(" + NAME + ")?";
  private static final Pattern REQUIREMENT =
      Pattern.compile(
          "!?\\s*"
              + KEY
              + "|"
              + KEY
              + "\\s*(=|==|!=)\\s*"
              + VALUE
              + "|"
              + KEY
              + "\\s*[<>]\\s*-?\\d+"
              + "|"
              + KEY
              + "\\s+(in|notin)\\s*\\(\\s*"
              + VALUE
              + "(\\s*,\\s*"
              + VALUE
              + ")*\\s*\\)");

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
      String trimmed = requirement.trim();
      if (!REQUIREMENT.matcher(trimmed).matches()) {
        throw new IllegalArgumentException(
            flag + ": '" + trimmed + "' is not a valid label selector requirement");
      }
    }
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
