package dev.routesync.client;

import dev.routesync.api.ApiJson;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.StatusResponse;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code routesync get endpoints NAME -n NS} or {@code NS/NAME}: one Service's endpoints, as
 * sidecars get them.
 */
@Command(
    name = "endpoints",
    aliases = {"endpoint", "ep"},
    mixinStandardHelpOptions = true,
    description = "Show the endpoints the agent serves for one Service.")
public final class GetEndpointsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ClientOptions options;

  @Mixin NamespaceOption namespace;

  @Parameters(
      index = "0",
      paramLabel = "[NAMESPACE/]NAME",
      description = "The Service: cart -n shop, or shop/cart.")
  String service;

  @Override
  public Integer call() {
    ServiceRef ref = namespace.service(spec, service);
    String named = ref.getNamespace() + "/" + ref.getName();
    ResolveRequest request =
        ResolveRequest.newBuilder().setNamespace(ref.getNamespace()).setName(ref.getName()).build();
    return ClientRun.run(
        spec,
        options.socket(spec),
        (agent, out, err) -> {
          Optional<ServiceEndpoints> resolved = agent.resolve(request);
          if (resolved.isEmpty()) {
            err.println("routesync: service " + named + " not found");
            return ExitCode.SOFTWARE;
          }
          ServiceEndpoints endpoints = resolved.get();
          // Resolve's answer has no staleness (it is the table's, not the Service's): Status says.
          Optional<StatusResponse> status = agent.statusIfServed();
          OutputFormat output = options.output();
          if (output == OutputFormat.NAME) {
            out.println("endpoints/" + ref.getName()); // as kubectl get endpoints NAME -o name
            return ExitCode.OK;
          }
          if (output == OutputFormat.JSON || output == OutputFormat.YAML) {
            // As GET /v1/services/{namespace}/{name}; an older agent's answer, as it was.
            out.print(
                DocumentOutput.render(
                    output,
                    status
                        .map(
                            answer ->
                                ApiJson.prettyService(
                                    endpoints,
                                    answer.getStale(),
                                    answer.hasSyncedAt()
                                        ? Optional.of(answer.getSyncedAt())
                                        : Optional.empty()))
                        .orElseGet(() -> ApiJson.pretty(endpoints))));
            return ExitCode.OK;
          }
          String header =
              status
                  .map(
                      answer ->
                          StaleHeader.of(
                              answer.getStale(),
                              answer.hasSyncedAt()
                                  ? Optional.of(answer.getSyncedAt())
                                  : Optional.empty(),
                              status))
                  .orElse("");
          boolean wide = options.output() == OutputFormat.WIDE;
          if (endpoints.getEndpointsCount() == 0) {
            err.print(header);
            if (wide) {
              err.println(EndpointTable.decision(endpoints));
            }
            err.println("No endpoints for service " + named + ".");
          } else {
            out.print(header);
            if (wide) {
              out.println(EndpointTable.decision(endpoints));
              out.print(EndpointTable.renderWide(endpoints));
            } else {
              out.print(EndpointTable.render(endpoints));
            }
          }
          return ExitCode.OK;
        });
  }
}
