package dev.routesync.client;

import dev.routesync.api.ApiJson;
import dev.routesync.api.v1.LatencyResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code routesync get latency}: the propagation latency on this node, from a change's trigger time
 * to each client's acknowledgement ({@code GET /v1/latency} on the socket): the buffer a pod's
 * {@code preStop} must cover.
 */
@Command(
    name = "latency",
    mixinStandardHelpOptions = true,
    description =
        "Show the propagation latency on this node (p50, p99): from an EndpointSlice change's"
            + " trigger time to each sidecar's acknowledgement of it.")
public final class GetLatencyCommand implements Callable<Integer> {

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
          LatencyResponse latency = agent.latency();
          out.print(
              output.human()
                  ? LatencyText.render(latency)
                  : DocumentOutput.render(output, ApiJson.pretty(latency)));
          return ExitCode.OK;
        });
  }
}
