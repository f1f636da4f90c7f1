package dev.routesync.client;

import dev.routesync.api.ApiJson;
import dev.routesync.api.v1.StatusResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code routesync get status}: how the agent's table stands (the Status RPC). Answers before the
 * first sync too, so it says why {@code get services} fails with "not synced yet".
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Show how the agent's routing table stands: trust, staleness, connection to the API"
            + " server, version and size.")
public final class GetStatusCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ClientOptions options;

  @Override
  public Integer call() {
    OutputFormat output =
        // One answer with no kind/name of its own: no -o name.
        options.output().requireOneOf(spec, OutputFormat.DOCUMENTS_AND_TABLES);
    return ClientRun.run(
        spec,
        options.socket(spec),
        (agent, out, err) -> {
          StatusResponse status = agent.status();
          out.print(
              output.human()
                  ? StatusText.render(status)
                  : DocumentOutput.render(output, ApiJson.pretty(status)));
          return ExitCode.OK;
        });
  }
}
