package dev.routesync.lint;

import java.util.List;

/**
 * {@code -o github}: GitHub Actions workflow commands, which the runner turns into annotations on
 * the pull request's lines: {@code ::error file=F,line=L,title=RS001
 * named-target-port-not-found::message}. Values are escaped as the runner unescapes them ({@code
 * %}, CR and LF everywhere; {@code :} and {@code ,} in properties too). Standard input has no file
 * in the repository to annotate, so its findings carry {@code <stdin>:LINE} in the message instead.
 */
final class GithubReport {

  private GithubReport() {}

  static String render(List<Finding> findings) {
    StringBuilder out = new StringBuilder();
    for (Finding finding : findings) {
      out.append("::").append(finding.severity().label()).append(' ');
      String message = finding.message();
      if (finding.file().equals(Input.STDIN)) {
        message = finding.file() + ":" + finding.line() + ": " + message;
      } else {
        out.append("file=")
            .append(property(finding.file()))
            .append(",line=")
            .append(finding.line())
            .append(',');
      }
      out.append("title=")
          .append(property(finding.rule().id() + " " + finding.rule().ruleName()))
          .append("::")
          .append(data(message))
          .append('\n');
    }
    return out.toString();
  }

  private static String data(String text) {
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
  }

  private static String property(String text) {
    return data(text).replace(":", "%3A").replace(",", "%2C");
  }
}
