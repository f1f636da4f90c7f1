package dev.routesync.kube.translate;

import java.util.Optional;

/**
 * Whether a Service's {@code spec.externalName} is a DNS name the agent may hand to clients: the
 * API server's rule for the field, a lowercase RFC 1123 subdomain (labels of {@code a-z}, {@code
 * 0-9} and {@code -}, neither starting nor ending with {@code -}, joined by dots; at most 253
 * characters) with one final dot allowed, and each label at most 63 characters, the most DNS can
 * hold (RFC 1035). Anything else, {@code <script>} or {@code *.example.com}, is never served: a
 * client would put it in a DNS query, a cluster name or a terminal.
 */
public final class ExternalNames {

  /** A DNS name's longest spelling, without its final dot. */
  public static final int MAX_CHARS = 253;

  /** A DNS label's longest spelling. */
  public static final int MAX_LABEL_CHARS = 63;

  private ExternalNames() {}

  /** Whether {@code name} is a DNS name as the API server accepts one. */
  public static boolean isDnsName(String name) {
    return problem(name).isEmpty();
  }

  /**
   * What makes {@code name} no DNS name, for a person to read, or empty when it is one. The text
   * never repeats the name: it names at most one character, printable ASCII or as {@code U+XXXX}.
   */
  public static Optional<String> problem(String name) {
    if (name == null || name.isEmpty()) {
      return Optional.of("it is empty");
    }
    String bare = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    if (bare.length() > MAX_CHARS) {
      return Optional.of(
          "it is " + bare.length() + " characters; a DNS name is at most " + MAX_CHARS);
    }
    int label = 1;
    int start = 0;
    for (int i = 0; i <= bare.length(); i++) {
      char c = i < bare.length() ? bare.charAt(i) : '.';
      if (c == '.') {
        Optional<String> wrong = labelProblem(bare, start, i, label);
        if (wrong.isPresent()) {
          return wrong;
        }
        label++;
        start = i + 1;
      } else if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-') {
        return Optional.of(
            "it holds "
                + shown(bare.codePointAt(i))
                + " at character "
                + (i + 1)
                + "; a DNS name holds lowercase letters, digits, '-' and '.'");
      }
    }
    return Optional.empty();
  }

  private static Optional<String> labelProblem(String name, int start, int end, int label) {
    int length = end - start;
    if (length == 0) {
      return Optional.of("its label " + label + " is empty (a dot first, last twice, or doubled)");
    }
    if (length > MAX_LABEL_CHARS) {
      return Optional.of(
          "its label "
              + label
              + " is "
              + length
              + " characters; a DNS label is at most "
              + MAX_LABEL_CHARS);
    }
    if (name.charAt(start) == '-' || name.charAt(end - 1) == '-') {
      return Optional.of("its label " + label + " starts or ends with '-'");
    }
    return Optional.empty();
  }

  private static String shown(int c) {
    return c > 0x20 && c < 0x7f && c != '\'' ? "'" + (char) c + "'" : String.format("U+%04X", c);
  }
}
