package dev.routesync.client;

import dev.routesync.api.ApiJson;
import dev.routesync.api.v1.WatchRequest;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code routesync watch [-n NS]}: a snapshot, then every table version that touches it, until
 * Ctrl-C or the agent ends the stream (exit code 0 on a clean end, 1 otherwise).
 */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description = {
      "Print the agent's table as it changes: a snapshot, then one event per version.",
      "Runs until Ctrl-C or until the agent ends the stream.",
      "With -o json, one JSON object per line."
    })
public final class WatchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ClientOptions options;

  @Mixin NamespaceOption namespace;

  @Override
  public Integer call() {
    WatchRequest request = WatchRequest.newBuilder().setNamespace(namespace.filter(spec)).build();
    // A stream of events: one JSON object per line, or the event text; no YAML or names.
    boolean json =
        options
                .output()
                .requireOneOf(
                    spec,
                    OutputFormat.TABLE,
                    OutputFormat.TEXT,
                    OutputFormat.WIDE,
                    OutputFormat.JSON)
            == OutputFormat.JSON;
    return ClientRun.run(
        spec,
        options.socket(spec),
        (agent, out, err) -> {
          // What the output last said about staleness (JSON says it in every line).
          boolean[] stale = {false};
          // Called on the client's event loop, one event at a time; flushed so a pipe sees each.
          agent.watch(
              request,
              event -> {
                if (json) {
                  out.print(ApiJson.line(event));
                } else {
                  out.print(WatchEventText.staleness(stale[0], event));
                  out.print(WatchEventText.render(event));
                }
                stale[0] = event.getStale();
                out.flush();
              });
          return ExitCode.OK;
        });
  }
}
