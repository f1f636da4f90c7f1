package dev.routesync.client;

import dev.routesync.config.AgentConfig;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

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

  /** How to print: the other {@code get} commands' two, and YAML. */
  enum Format {
    TABLE,
    JSON,
    YAML;

    static final class Converter implements ITypeConverter<Format> {
      @Override
      public Format convert(String value) {
        try {
          String name = value.trim().toUpperCase(Locale.ROOT);
          return Format.valueOf(name.equals("TEXT") ? "TABLE" : name); // as OutputFormat
        } catch (IllegalArgumentException e) {
          throw new TypeConversionException(
              "expected table (or text), json or yaml, got '" + value + "'");
        }
      }
    }
  }

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
      converter = Format.Converter.class,
      paramLabel = "FORMAT",
      description =
          "table (default; or text), json or yaml: the agent's /v1/drift answer as it is.")
  Format output;

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
            case JSON -> out.println(body.encodePrettily());
            case YAML -> out.print(Serialization.asYaml(body.getMap()));
            case TABLE -> {
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
}
