package dev.routesync.e2e;

import dev.routesync.testing.LineProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Pods that answer, and an unmodified xDS client that calls them, in a network namespace of their
 * own. Pod IPs are 198.18.x.y, and this machine lets traffic reach only loopback or addresses
 * inside a namespace the test made: so {@code unshare --net} makes one, puts each pod IP on its
 * loopback, starts {@code interop/grpc-js/id-backend.js} on {@code IP:port} (it replies with the IP
 * it was reached on) and then {@code interop/grpc-js/xds-client.js}, which resolves {@code
 * xds:///...} through the bootstrap's Unix socket (a path, so it crosses network namespaces) and
 * prints one JSON line per call.
 *
 * <p>Never outlives the test: {@code --pid --fork --kill-child} makes the client the init of a PID
 * namespace of its own, which the kernel empties when it exits and which dies with {@code unshare};
 * the client stops when its stdin closes, and both scripts stop after their run time.
 */
final class NetnsXdsProbe implements AutoCloseable {

  /** The unary method id-backend.js serves (as the unit tier's IdBackend does). */
  static final String METHOD = "/routesync.interop.Backend/Who";

  private static final Path PACKAGE = Path.of("interop", "grpc-js");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * Run inside the namespace, as {@code sh}: the pod IPs come as arguments, the rest in the
   * environment, so nothing is quoted into the script.
   */
  private static final String SCRIPT =
      """
      set -e
      ip link set lo up
      for ip in "$@"; do ip addr add "$ip/32" dev lo; done
      addresses=""
      for ip in "$@"; do addresses="$addresses $ip:$PROBE_PORT"; done
      node "$PROBE_PACKAGE/id-backend.js" --seconds "$PROBE_SECONDS" $addresses &
      exec node "$PROBE_PACKAGE/xds-client.js" "$PROBE_TARGET" "$PROBE_METHOD" \\
        --every-ms 100 --deadline-ms 1000 --seconds "$PROBE_SECONDS"
      """;

  /** One call's outcome, as xds-client.js printed it. */
  record Call(long call, boolean ok, String reply, int code, String status, String details) {

    static Call of(JsonNode line) {
      return new Call(
          line.path("call").asLong(),
          line.path("ok").asBoolean(),
          line.path("reply").asString(""),
          line.path("code").asInt(0),
          line.path("status").asString(""),
          line.path("details").asString(""));
    }
  }

  private final Process process;
  private final Path log;
  private final Thread reader;
  private final List<Call> calls = new CopyOnWriteArrayList<>();

  private NetnsXdsProbe(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.reader = new Thread(this::read, "netns-xds-probe");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts backends on {@code podIps} at {@code port} and the client calling {@code target} (e.g.
   * {@code xds:///app.ns:80}) every 100 ms through {@code bootstrap}, for at most {@code runFor}.
   * The backends' output and grpc-js's xDS trace go to {@code log}.
   */
  static NetnsXdsProbe start(
      Path project,
      Path bootstrap,
      List<String> podIps,
      int port,
      String target,
      Duration runFor,
      Path log)
      throws IOException {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                "unshare",
                "--net",
                "--pid",
                "--fork",
                "--kill-child",
                "--",
                "sh",
                "-c",
                SCRIPT,
                "netns-probe"));
    command.addAll(podIps);
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
    var env = builder.environment();
    env.put("PROBE_PACKAGE", project.resolve(PACKAGE).toString());
    env.put("PROBE_PORT", Integer.toString(port));
    env.put("PROBE_SECONDS", Long.toString(Math.max(1, runFor.toSeconds())));
    env.put("PROBE_TARGET", target);
    env.put("PROBE_METHOD", METHOD);
    env.put("GRPC_XDS_BOOTSTRAP", bootstrap.toAbsolutePath().toString());
    // What the client was told (each EDS resource with its health statuses), for a failure.
    env.put("GRPC_VERBOSITY", "DEBUG");
    env.put("GRPC_TRACE", "xds_client,xds_resolver,cds_balancer,xds_cluster_impl");
    return new NetnsXdsProbe(builder.start(), log);
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        JsonNode node;
        try {
          node = JSON.readTree(line);
        } catch (RuntimeException e) {
          continue;
        }
        if (node.has("call")) {
          calls.add(Call.of(node));
        }
      }
    } catch (IOException e) {
      // The process ended: nothing more to read.
    }
  }

  /** Every call so far, in order. */
  List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The calls from the {@code from}-th on. */
  List<Call> callsFrom(int from) {
    List<Call> all = calls();
    return all.subList(Math.min(from, all.size()), all.size());
  }

  boolean alive() {
    return process.isAlive();
  }

  /** For a failure message: the last calls and the tail of the backends' and client's stderr. */
  String describe() {
    List<Call> all = calls();
    String tail;
    try {
      List<String> err = Files.readAllLines(log, StandardCharsets.UTF_8);
      tail = String.join("\n", err.subList(Math.max(0, err.size() - 40), err.size()));
    } catch (IOException e) {
      tail = "(unreadable: " + e.getMessage() + ")";
    }
    return (process.isAlive() ? "probe running" : "probe exited " + process.exitValue())
        + ", "
        + all.size()
        + " calls, the last: "
        + all.subList(Math.max(0, all.size() - 5), all.size())
        + "\nits stderr, all of it in "
        + log
        + " (last 40 lines):\n"
        + tail;
  }

  @Override
  public void close() throws Exception {
    LineProcess.stop(process, reader);
  }
}
