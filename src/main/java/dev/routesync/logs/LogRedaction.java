package dev.routesync.logs;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes credentials out of log text before it is written anywhere: the value of an {@code
 * Authorization} header (its scheme kept), a {@code Bearer} token wherever it is, a {@code token=},
 * {@code password=}, {@code secret=} or {@code api_key=} parameter, a JSON Web Token, the password
 * of a URL and a private key's PEM block each become {@value #REDACTED}.
 *
 * <p>Why every line and not a list of loggers: a library logs a credential because it was asked to
 * be verbose (fabric8 logs each request's headers at TRACE), and the next library or version may
 * print it from a logger nobody listed. Text that only looks like a credential is redacted too; a
 * line that reads worse is the price of never printing a token.
 */
public final class LogRedaction {

  public static final String REDACTED = "<redacted>";

  // Characters of a token as HTTP and JWT spell them (RFC 6750's b64token, base64, base64url).
  private static final String TOKEN = "[A-Za-z0-9._~+/=-]+";

  private static final List<Rule> RULES =
      List.of(
          // "Authorization: Bearer x", "authorization=[Basic x]", "\"Authorization\":\"x\"": the
          // header's name and scheme stay, so a reader still sees which credential was sent.
          new Rule(
              "(?i)\\b((?:proxy-)?authorization[\"']?\\s*[:=]\\s*[\\[\"']?\\s*"
                  + "(?:(?:bearer|basic|digest|negotiate|token)\\s+)?)[^\\s\"',;\\]}]+",
              "$1" + REDACTED),
          new Rule("(?i)\\b(bearer\\s+)" + TOKEN, "$1" + REDACTED),
          new Rule(
              "(?i)\\b((?:access_|id_|refresh_|auth_)?token|password|passwd|secret"
                  + "|client_secret|api[_-]?key)=[^&\\s\"',;)\\]}]+",
              "$1=" + REDACTED),
          new Rule("eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}(?:\\.[A-Za-z0-9_-]*)?", REDACTED),
          new Rule("(://[^/@\\s:]+:)[^/@\\s]+@", "$1" + REDACTED + "@"),
          new Rule(
              "-----BEGIN ([A-Z ]*)PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
              // The markers stay, so that a line redacted twice reads the same.
              "-----BEGIN $1PRIVATE KEY-----" + REDACTED + "-----END $1PRIVATE KEY-----"));

  private LogRedaction() {}

  /** {@code text} without credentials; the same instance when it held none. */
  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    for (Rule rule : RULES) {
      out = rule.apply(out);
    }
    return out;
  }

  private record Rule(Pattern pattern, String replacement) {
    Rule(String regex, String replacement) {
      this(Pattern.compile(regex), replacement);
    }

    String apply(String text) {
      Matcher matcher = pattern.matcher(text);
      return matcher.find() ? matcher.replaceAll(replacement) : text;
    }
  }
}
