package dev.routesync.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's JVM flags as the image launches it: the Dockerfile's {@code ENV JAVA_TOOL_OPTIONS}
 * line (or the DaemonSet's override of it), with the sizes the memory budget is made of.
 */
record JvmLayout(List<String> flags) {

  private static final Pattern ENV_LINE =
      Pattern.compile("^ENV JAVA_TOOL_OPTIONS=\"([^\"]*)\"$", Pattern.MULTILINE);
  private static final Pattern SIZE = Pattern.compile("([0-9]+)([kKmMgG]?)");

  static JvmLayout parse(String javaToolOptions) {
    return new JvmLayout(
        Arrays.stream(javaToolOptions.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList());
  }

  /** The image's flags: the one {@code ENV JAVA_TOOL_OPTIONS="..."} line of the Dockerfile. */
  static JvmLayout ofDockerfile(Path dockerfile) throws IOException {
    Matcher matcher = ENV_LINE.matcher(Files.readString(dockerfile));
    if (!matcher.find()) {
      throw new AssertionError(dockerfile + " has no ENV JAVA_TOOL_OPTIONS=\"...\" line");
    }
    String value = matcher.group(1);
    if (matcher.find()) {
      throw new AssertionError(dockerfile + " sets JAVA_TOOL_OPTIONS twice");
    }
    return parse(value);
  }

  boolean has(String flag) {
    return flags.contains(flag);
  }

  boolean mentions(String fragment) {
    return flags.stream().anyMatch(f -> f.contains(fragment));
  }

  /**
   * The size given by the last flag starting with {@code prefix} ({@code -Xmx}, {@code
   * -XX:MaxMetaspaceSize=}), in bytes: the JVM takes the last one too.
   */
  Optional<Long> size(String prefix) {
    Optional<Long> found = Optional.empty();
    for (String flag : flags) {
      if (flag.startsWith(prefix)) {
        found = Optional.of(bytes(flag.substring(prefix.length()), flag));
      }
    }
    return found;
  }

  long required(String prefix) {
    return size(prefix)
        .orElseThrow(() -> new AssertionError("no " + prefix + " in JAVA_TOOL_OPTIONS " + flags));
  }

  private static long bytes(String text, String flag) {
    Matcher matcher = SIZE.matcher(text);
    if (!matcher.matches()) {
      throw new AssertionError("not a size: " + flag);
    }
    long value = Long.parseLong(matcher.group(1));
    return switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> value << 10;
      case "m" -> value << 20;
      case "g" -> value << 30;
      default -> value;
    };
  }
}
