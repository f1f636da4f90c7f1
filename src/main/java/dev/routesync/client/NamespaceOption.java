package dev.routesync.client;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.table.KubernetesNames;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The {@code -n}/{@code --namespace} option of every client command, read the kubectl way: it
 * filters {@code get services} and {@code watch}, and names the namespace of {@code get endpoints
 * NAME}, which also takes {@code NAMESPACE/NAME}. Names are checked before they reach the agent,
 * which would refuse them anyway: a typo is a usage error (exit code 2) with the argument quoted,
 * not a round trip.
 */
public final class NamespaceOption {

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description =
          "Only this namespace (default: all); for one Service, its namespace, unless given as"
              + " NAMESPACE/NAME.")
  String namespace;

  /** The namespace to filter by, empty for all, or a usage error. */
  String filter(CommandSpec spec) {
    if (namespace == null || namespace.isEmpty()) {
      return "";
    }
    if (!KubernetesNames.isDns1123Label(namespace)) {
      throw new ParameterException(
          spec.commandLine(), "-n: '" + namespace + "' is not a valid namespace name");
    }
    return namespace;
  }

  /**
   * The Service {@code argument} names: {@code NAME} with {@code -n NAMESPACE}, or {@code
   * NAMESPACE/NAME} (where a {@code -n} must agree); or a usage error.
   */
  ServiceRef service(CommandSpec spec, String argument) {
    String option = filter(spec);
    int slash = argument.indexOf('/');
    if (slash < 0 && !option.isEmpty()) {
      if (!KubernetesNames.isDns1123Label(argument)) {
        throw new ParameterException(
            spec.commandLine(),
            "'" + argument + "' is not a valid Service name (lower-case DNS label)");
      }
      return ref(option, argument);
    }
    if (slash < 0 || slash != argument.lastIndexOf('/')) {
      throw new ParameterException(
          spec.commandLine(),
          "expected NAME -n NAMESPACE or NAMESPACE/NAME, got '" + argument + "'");
    }
    String namespacePart = argument.substring(0, slash);
    String name = argument.substring(slash + 1);
    if (!KubernetesNames.isDns1123Label(namespacePart) || !KubernetesNames.isDns1123Label(name)) {
      throw new ParameterException(
          spec.commandLine(),
          "'" + argument + "' is not NAMESPACE/NAME with two valid names (lower-case DNS labels)");
    }
    if (!option.isEmpty() && !option.equals(namespacePart)) {
      throw new ParameterException(
          spec.commandLine(),
          "'" + argument + "' is in namespace " + namespacePart + ", but -n says " + option);
    }
    return ref(namespacePart, name);
  }

  private static ServiceRef ref(String namespace, String name) {
    return ServiceRef.newBuilder().setNamespace(namespace).setName(name).build();
  }
}
