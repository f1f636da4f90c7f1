package dev.routesync.client;

import dev.routesync.config.AgentConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code routesync get drift}: this node's Ready pods that are not endpoints of a Service selecting
 * them, as the agent's drift detector found them ({@code GET /v1/drift} on the socket).
 */
@Command(
    name = "drift",
    mixinStandardHelpOptions = true,
    description =
        "List this node's Ready pods missing from the ready endpoints of a Service port that"
            + " selects them (the agent's drift detector).")
public final class GetDriftCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--socket",
      paramLabel = "PATH",
      defaultValue = "${env:ROUTESYNC_SOCKET:-" + AgentConfig.DEFAULT_SOCKET + "}",
      description = "The agent's Unix socket (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_SOCKET")
  String socket;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      paramLabel = "FORMAT",
      description =
          "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}; text and wide are the table; json"
              + " and yaml: the agent's /v1/drift answer as it is; name: pod/NAME per drifting"
              + " pod).")
  OutputFormat output;

  @Override
  public Integer call() {
    if (socket == null || socket.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--socket must not be empty");
    }
    return ClientRun.run(
        spec,
        Path.of(socket.trim()),
        (agent, out, err) -> {
          JsonObject body = agent.drift();
          switch (output) {
            case JSON, YAML -> out.print(DocumentOutput.render(output, body.encodePrettily()));
            case NAME -> pods(body).forEach(pod -> out.println("pod/" + pod));
            case TABLE, TEXT, WIDE -> {
              String detector = body.getString("detector", "");
              if ("off".equals(detector)) {
                err.println(
                    "The drift detector is off on this node: "
                        + body.getString("reason", "")
                        + ".");
              } else if ("starting".equals(detector)) {
                err.println("The drift detector has not synced its watches yet.");
              } else if (body.getJsonArray("drift") == null
                  || body.getJsonArray("drift").isEmpty()) {
                err.println("No drift found."); // as kubectl: nothing on stdout, success
              } else {
                out.print(DriftTable.render(body, Instant.now()));
              }
            }
          }
          return ExitCode.OK;
        });
  }

  /** The drifting pods, each once, in the answer's order (a pod may drift from several ports). */
  private static Set<String> pods(JsonObject body) {
    Set<String> pods = new LinkedHashSet<>();
    JsonArray drift = body.getJsonArray("drift", new JsonArray());
    for (int i = 0; i < drift.size(); i++) {
      pods.add(drift.getJsonObject(i).getString("pod", ""));
    }
    pods.remove("");
    return pods;
  }
}
