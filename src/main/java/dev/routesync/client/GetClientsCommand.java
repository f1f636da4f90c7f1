package dev.routesync.client;

import dev.routesync.api.ApiJson;
import dev.routesync.api.v1.ClientsResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code routesync get clients}: each Watch and ADS stream open on the agent, with its sync state
 * ({@code GET /v1/clients} on the socket).
 */
@Command(
    name = "clients",
    aliases = "client",
    mixinStandardHelpOptions = true,
    description =
        "List the sidecars connected to the agent (Watch and ADS streams): who they are, what"
            + " they were sent and acknowledged, their last NACK, how long they have been behind.")
public final class GetClientsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ClientOptions options;

  @Option(
      names = "--limit",
      defaultValue = "100",
      paramLabel = "N",
      description = "List at most N streams, the most behind first (1 to 500; default: 100).")
  int limit;

  @Override
  public Integer call() {
    if (limit < 1 || limit > 500) {
      throw new ParameterException(spec.commandLine(), "--limit must be from 1 to 500");
    }
    OutputFormat output =
        // One answer with no kind/name of its own: no -o name.
        options.output().requireOneOf(spec, OutputFormat.DOCUMENTS_AND_TABLES);
    return ClientRun.run(
        spec,
        options.socket(spec),
        (agent, out, err) -> {
          ClientsResponse answer = agent.clients(limit);
          if (!output.human()) {
            out.print(DocumentOutput.render(output, ApiJson.pretty(answer)));
          } else if (answer.getTotal() == 0) {
            err.println("No client is connected."); // as kubectl: nothing on stdout, success
          } else {
            out.print(ClientsTable.render(answer));
          }
          return ExitCode.OK;
        });
  }
}
