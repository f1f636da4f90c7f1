package dev.routesync.client;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.table.InvalidNameException;
import dev.routesync.table.KubernetesNames;
import dev.routesync.table.ServiceKey;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The {@code -n}/{@code --namespace} option of every client command, read the kubectl way: it
 * filters {@code get services} and {@code watch}, and names the namespace of {@code get endpoints
 * NAME}, which also takes {@code NAMESPACE/NAME}. Names are checked before they reach the agent,
 * with the rule and the message the agent's APIs use ({@link KubernetesNames}): a typo is a usage
 * error (exit code 2), not a round trip.
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
    try {
      return KubernetesNames.requireNamespace(namespace);
    } catch (InvalidNameException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  /**
   * The Service {@code argument} names: {@code NAME} with {@code -n NAMESPACE}, or {@code
   * NAMESPACE/NAME} (where a {@code -n} must agree); or a usage error.
   */
  ServiceRef service(CommandSpec spec, String argument) {
    String option = filter(spec);
    boolean qualified = argument.indexOf('/') >= 0;
    if (!qualified && option.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "expected NAME -n NAMESPACE or NAMESPACE/NAME, got '" + argument + "'");
    }
    ServiceKey key;
    try {
      key = qualified ? ServiceKey.parse(argument) : ServiceKey.of(option, argument);
    } catch (InvalidNameException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    if (!option.isEmpty() && !option.equals(key.namespace())) {
      throw new ParameterException(
          spec.commandLine(),
          "'" + argument + "' is in namespace " + key.namespace() + ", but -n says " + option);
    }
    return ServiceRef.newBuilder().setNamespace(key.namespace()).setName(key.name()).build();
  }
}
