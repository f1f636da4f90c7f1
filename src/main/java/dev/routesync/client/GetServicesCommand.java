package dev.routesync.client;

import dev.routesync.api.ApiJson;
import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.ListResponse;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code routesync get services [-n NS]}: the Services in the agent's table. */
@Command(
    name = "services",
    aliases = {"service", "svc"},
    mixinStandardHelpOptions = true,
    description = "List the Services in the agent's routing table.")
public final class GetServicesCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ClientOptions options;

  @Mixin NamespaceOption namespace;

  @Override
  public Integer call() {
    String validNamespace = namespace.filter(spec);
    ListRequest request = ListRequest.newBuilder().setNamespace(validNamespace).build();
    return ClientRun.run(
        spec,
        options.socket(spec),
        (agent, out, err) -> {
          ListResponse list = agent.list(request);
          OutputFormat output = options.output();
          if (output == OutputFormat.JSON || output == OutputFormat.YAML) {
            // stale and synced_at are fields of the list
            out.print(DocumentOutput.render(output, ApiJson.pretty(list)));
            return ExitCode.OK;
          }
          if (output == OutputFormat.NAME) {
            // As kubectl: kind/name, one per line, and no namespace even across namespaces.
            list.getServicesList().forEach(service -> out.println("service/" + service.getName()));
            return ExitCode.OK;
          }
          // Asked only when stale, for the reason: a fresh table costs one call, as before.
          String header =
              StaleHeader.of(
                  list.getStale(),
                  list.hasSyncedAt() ? Optional.of(list.getSyncedAt()) : Optional.empty(),
                  list.getStale() ? agent.statusIfServed() : Optional.empty());
          if (list.getServicesCount() == 0) {
            // As kubectl: nothing on stdout, a note on stderr, success.
            err.print(header);
            err.println(
                validNamespace.isEmpty()
                    ? "No services found."
                    : "No services found in namespace " + validNamespace + ".");
          } else {
            out.print(header);
            out.print(ServiceTable.render(list));
          }
          return ExitCode.OK;
        });
  }
}
