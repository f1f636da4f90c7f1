package dev.routesync.cli;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.table.KubernetesNames;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks names before they reach the agent, which would refuse them anyway: a typo is a usage error
 * (exit code 2) with the argument quoted, not a round trip.
 */
final class KubeNames {

  private KubeNames() {}

  /** {@code NS/NAME} as a reference, or a usage error. */
  static ServiceRef serviceRef(CommandSpec spec, String text) {
    int slash = text.indexOf('/');
    if (slash < 0 || slash != text.lastIndexOf('/')) {
      throw new ParameterException(
          spec.commandLine(), "expected NAMESPACE/NAME, got '" + text + "'");
    }
    String namespace = text.substring(0, slash);
    String name = text.substring(slash + 1);
    if (!isDns1123Label(namespace) || !isDns1123Label(name)) {
      throw new ParameterException(
          spec.commandLine(),
          "'" + text + "' is not NAMESPACE/NAME with two valid names (lower-case DNS labels)");
    }
    return ServiceRef.newBuilder().setNamespace(namespace).setName(name).build();
  }

  /** The namespace of {@code -n}, empty for all, or a usage error. */
  static String namespace(CommandSpec spec, String text) {
    if (text == null || text.isEmpty()) {
      return "";
    }
    if (!isDns1123Label(text)) {
      throw new ParameterException(
          spec.commandLine(), "-n: '" + text + "' is not a valid namespace name");
    }
    return text;
  }

  static boolean isDns1123Label(String text) {
    return KubernetesNames.isDns1123Label(text); // the rule the agent applies
  }
}
