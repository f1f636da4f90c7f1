package dev.routesync.config;

import dev.routesync.config.FlagConverters.HostPortConverter;
import dev.routesync.config.FlagConverters.IdList;
import dev.routesync.config.FlagConverters.IdListConverter;
import dev.routesync.config.FlagConverters.LogFormatConverter;
import dev.routesync.config.FlagConverters.NamespaceList;
import dev.routesync.config.FlagConverters.NamespaceListConverter;
import dev.routesync.config.FlagConverters.OptionalPathConverter;
import dev.routesync.config.FlagConverters.SourceConverter;
import dev.routesync.config.FlagConverters.TrimmedConverter;
import dev.routesync.drift.DriftSettings;
import dev.routesync.kube.WatchSettings;
import dev.routesync.logs.LogFormat;
import dev.routesync.serve.ConnectionLimits;
import dev.routesync.serve.PeerPolicy;
import dev.routesync.state.StateSettings;
import dev.routesync.sync.CoalescerSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The agent's flags, shared by {@code routesync agent} and {@code routesync demo}. Every flag has
 * an environment-variable twin ({@code --label-selector} / {@code ROUTESYNC_LABEL_SELECTOR}); a
 * flag on the command line wins.
 *
 * <p>picocli converts each value to its type ({@link FlagConverters}: syntax only, a malformed
 * value fails the parse naming the flag); {@link #toConfig()} hands the values to the records,
 * which check them. Every default is a constant of the record that holds the value, so the {@code
 * defaultValue} strings below only name the variable.
 */
public final class AgentOptions {

  @Option(
      names = "--source",
      converter = SourceConverter.class,
      defaultValue = "${env:ROUTESYNC_SOURCE:-" + AgentConfig.DEFAULT_SOURCE_TEXT + "}",
      description =
          "endpointslices, or endpoints for legacy clusters (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_SOURCE")
  Source source;

  @Option(
      names = "--label-selector",
      converter = TrimmedConverter.class,
      defaultValue =
          "${env:ROUTESYNC_LABEL_SELECTOR:-" + WatchSettings.DEFAULT_LABEL_SELECTOR + "}",
      description =
          "Opt-in label selector, applied by the API server (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_LABEL_SELECTOR")
  String labelSelector;

  @Option(
      names = "--namespace",
      converter = NamespaceListConverter.class,
      defaultValue = "${env:ROUTESYNC_NAMESPACE:-}",
      description = "Comma-separated namespaces to watch; empty for all. Env: ROUTESYNC_NAMESPACE")
  NamespaceList namespaces;

  @Option(
      names = "--kubeconfig",
      converter = OptionalPathConverter.class,
      defaultValue = "${env:ROUTESYNC_KUBECONFIG:-}",
      description =
          "Kubeconfig file; empty for in-cluster credentials, then KUBECONFIG, then"
              + " ~/.kube/config. Env: ROUTESYNC_KUBECONFIG")
  Optional<Path> kubeconfig;

  @Option(
      names = "--socket",
      defaultValue = "${env:ROUTESYNC_SOCKET:-" + AgentConfig.DEFAULT_SOCKET + "}",
      description =
          "Unix socket sidecars connect to (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_SOCKET")
  Path socket;

  @Option(
      names = "--admin-host",
      converter = TrimmedConverter.class,
      defaultValue = "${env:ROUTESYNC_ADMIN_HOST:-" + AgentConfig.DEFAULT_ADMIN_HOST + "}",
      description =
          "Address of the admin listener (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_ADMIN_HOST")
  String adminHost;

  @Option(
      names = "--admin-port",
      defaultValue = "${env:ROUTESYNC_ADMIN_PORT:-" + AgentConfig.DEFAULT_ADMIN_PORT + "}",
      description =
          "TCP port for /healthz, /readyz and /metrics; 0 turns it off (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_ADMIN_PORT")
  int adminPort;

  @Option(
      names = "--debug-host",
      converter = TrimmedConverter.class,
      defaultValue = "${env:ROUTESYNC_DEBUG_HOST:-" + DebugListener.DEFAULT_HOST + "}",
      description =
          "Loopback address of the debug listener: /status, /logging, /debug/bundle (default:"
              + " ${DEFAULT-VALUE}). Env: ROUTESYNC_DEBUG_HOST")
  String debugHost;

  @Option(
      names = "--debug-port",
      defaultValue = "${env:ROUTESYNC_DEBUG_PORT:-" + DebugListener.DEFAULT_PORT + "}",
      description =
          "TCP port of the debug listener; 0 turns it off (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_DEBUG_PORT")
  int debugPort;

  @Option(
      names = "--debounce",
      defaultValue = "${env:ROUTESYNC_DEBOUNCE:-" + CoalescerSettings.DEFAULT_DEBOUNCE_TEXT + "}",
      description =
          "Quiet period before a batch is published, 0..10s (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_DEBOUNCE")
  Duration debounce;

  @Option(
      names = "--max-delay",
      defaultValue = "${env:ROUTESYNC_MAX_DELAY:-" + CoalescerSettings.DEFAULT_MAX_DELAY_TEXT + "}",
      description =
          "Longest a change waits while changes keep coming, debounce..1m (default:"
              + " ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_MAX_DELAY")
  Duration maxDelay;

  @Option(
      names = "--max-batch",
      defaultValue = "${env:ROUTESYNC_MAX_BATCH:-" + CoalescerSettings.DEFAULT_MAX_BATCH + "}",
      description =
          "Dirty services that force a flush (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_MAX_BATCH")
  int maxBatch;

  @Option(
      names = "--relist-after",
      defaultValue =
          "${env:ROUTESYNC_RELIST_AFTER:-" + WatchSettings.DEFAULT_RELIST_AFTER_TEXT + "}",
      description =
          "Relist after a watch outage longer than this, 1s..1h (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_RELIST_AFTER")
  Duration relistAfter;

  // Descriptions are format strings to picocli: a literal percent sign is written %%.
  @Option(
      names = "--resync",
      defaultValue = "${env:ROUTESYNC_RESYNC:-" + WatchSettings.DEFAULT_RESYNC_TEXT + "}",
      description =
          "Anti-entropy relist period, 1m..24h, jittered +-10%%; 0 turns it off (default:"
              + " ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_RESYNC")
  Duration resync;

  @Option(
      names = "--listen-tcp",
      converter = HostPortConverter.class,
      defaultValue = "${env:ROUTESYNC_LISTEN_TCP:-}",
      description =
          "Also serve the socket's API on this loopback HOST:PORT (e.g. 127.0.0.1:9465), to every"
              + " local user; needs --listen-tcp-insecure. Empty for none. Env: ROUTESYNC_LISTEN_TCP")
  Optional<InetSocketAddress> listenTcp;

  // TCP has no peer check: the socket's 0660 mode is the only access control the agent has, and
  // a loopback port bypasses it for every user and every pod sharing the node's network. So
  // --listen-tcp is refused unless the operator says, in a separate flag, that they accept it.
  // A fallback value, so the flag means true: picocli would otherwise toggle the default, and the
  // flag given with ROUTESYNC_LISTEN_TCP_INSECURE=true would take the acknowledgement back. 0..1
  // keeps the --listen-tcp-insecure=false form working.
  @Option(
      names = "--listen-tcp-insecure",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "${env:ROUTESYNC_LISTEN_TCP_INSECURE:-false}",
      description =
          "Accept that --listen-tcp serves every local user: TCP has no group check, unlike the"
              + " socket. Required with --listen-tcp. Env: ROUTESYNC_LISTEN_TCP_INSECURE")
  boolean listenTcpInsecure;

  @Option(
      names = "--grpc-reflection",
      arity = "1",
      defaultValue =
          "${env:ROUTESYNC_GRPC_REFLECTION:-" + AgentConfig.DEFAULT_GRPC_REFLECTION + "}",
      description =
          "Serve gRPC server reflection (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_GRPC_REFLECTION")
  boolean grpcReflection;

  @Option(
      names = "--shutdown-timeout",
      defaultValue =
          "${env:ROUTESYNC_SHUTDOWN_TIMEOUT:-" + AgentConfig.DEFAULT_SHUTDOWN_TIMEOUT_TEXT + "}",
      description =
          "Longest a graceful stop may take, 1s..5m (default: ${DEFAULT-VALUE}). Env:"
              + " ROUTESYNC_SHUTDOWN_TIMEOUT")
  Duration shutdownTimeout;

  @Option(
      names = "--max-connections",
      defaultValue =
          "${env:ROUTESYNC_MAX_CONNECTIONS:-" + ConnectionLimits.DEFAULT_MAX_CONNECTIONS + "}",
      description =
          "Connections the socket (and --listen-tcp) accepts at once, 1..1000000; more are closed"
              + " at accept (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_MAX_CONNECTIONS")
  int maxConnections;

  @Option(
      names = "--header-timeout",
      defaultValue =
          "${env:ROUTESYNC_HEADER_TIMEOUT:-" + ConnectionLimits.DEFAULT_HEADER_TIMEOUT_TEXT + "}",
      description =
          "A request's headers must arrive within this, 1s..5m, or the connection is closed"
              + " (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_HEADER_TIMEOUT")
  Duration headerTimeout;

  @Option(
      names = "--idle-timeout",
      defaultValue =
          "${env:ROUTESYNC_IDLE_TIMEOUT:-" + ConnectionLimits.DEFAULT_IDLE_TIMEOUT_TEXT + "}",
      description =
          "Close a connection with no request or stream open for this long, 1s..24h; open Watch"
              + " streams are never cut (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_IDLE_TIMEOUT")
  Duration idleTimeout;

  @Option(
      names = "--body-timeout",
      defaultValue =
          "${env:ROUTESYNC_BODY_TIMEOUT:-" + ConnectionLimits.DEFAULT_BODY_TIMEOUT_TEXT + "}",
      description =
          "A request's body (a gRPC call's request message) must arrive within this of its"
              + " headers, 1s..5m, or the call is cancelled (DEADLINE_EXCEEDED; HTTP 408);"
              + " ADS streams are exempt (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_BODY_TIMEOUT")
  Duration bodyTimeout;

  @Option(
      names = "--max-streams",
      defaultValue = "${env:ROUTESYNC_MAX_STREAMS:-" + ConnectionLimits.DEFAULT_MAX_STREAMS + "}",
      description =
          "Calls (HTTP/2 streams) open at once on the socket, 1..1000000; one uid holding half"
              + " of them or more may not take from the last quarter, and a call over either limit"
              + " gets RESOURCE_EXHAUSTED (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_MAX_STREAMS")
  int maxStreams;

  @Option(
      names = "--node-name",
      converter = TrimmedConverter.class,
      defaultValue = "${env:ROUTESYNC_NODE_NAME:-${env:NODE_NAME:-}}",
      description =
          "This node's name, from the downward API (a DNS subdomain); the drift detector needs"
              + " it. Env: ROUTESYNC_NODE_NAME or NODE_NAME")
  String nodeName;

  @Option(
      names = "--zone",
      converter = TrimmedConverter.class,
      defaultValue = "${env:ROUTESYNC_ZONE:-}",
      description =
          "This node's zone for topology hints, instead of its Node's topology.kubernetes.io/zone"
              + " label (read with get on nodes); for tests and demos. Empty to read the label"
              + " (default). Env: ROUTESYNC_ZONE")
  String zone;

  @Option(
      names = "--drift-detector",
      arity = "1",
      defaultValue = "${env:ROUTESYNC_DRIFT_DETECTOR:-" + DriftSettings.DEFAULT_ENABLED + "}",
      description =
          "Report this node's Ready pods that are not endpoints of the Services selecting them;"
              + " needs --node-name and --source endpointslices (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_DRIFT_DETECTOR")
  boolean driftDetector;

  @Option(
      names = "--drift-grace",
      defaultValue = "${env:ROUTESYNC_DRIFT_GRACE:-" + DriftSettings.DEFAULT_GRACE_TEXT + "}",
      description =
          "How long a pod whose port resolves may be missing from endpoints before it is"
              + " reported as NotInEndpoints, 0..1h; named-port and protocol mismatches are"
              + " reported at once (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_DRIFT_GRACE")
  Duration driftGrace;

  @Option(
      names = "--watch-silence",
      defaultValue =
          "${env:ROUTESYNC_WATCH_SILENCE:-" + WatchSettings.DEFAULT_WATCH_SILENCE_TEXT + "}",
      description =
          "Relist a watch that delivered no event and no bookmark for this long, 2m..1h"
              + " (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_WATCH_SILENCE")
  Duration watchSilence;

  @Option(
      names = "--state-file",
      converter = OptionalPathConverter.class,
      defaultValue = "${env:ROUTESYNC_STATE_FILE:-" + StateSettings.DEFAULT_FILE_TEXT + "}",
      description =
          "File the table is persisted to and warm-started from; \"\" turns persistence off"
              + " (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_STATE_FILE")
  Optional<Path> stateFile;

  @Option(
      names = "--state-flush",
      defaultValue = "${env:ROUTESYNC_STATE_FLUSH:-" + StateSettings.DEFAULT_FLUSH_TEXT + "}",
      description =
          "Write the state file at most once per this after a publish, and no sooner than 20"
              + " times the last write's duration, 100ms..5m (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_STATE_FLUSH")
  Duration stateFlush;

  @Option(
      names = "--allow-uids",
      converter = IdListConverter.class,
      defaultValue = "${env:ROUTESYNC_ALLOW_UIDS:-}",
      description =
          "Comma-separated uids allowed on the socket (SO_PEERCRED); others are closed at once."
              + " Empty for any. Env: ROUTESYNC_ALLOW_UIDS")
  IdList allowUids;

  @Option(
      names = "--allow-gids",
      converter = IdListConverter.class,
      defaultValue = "${env:ROUTESYNC_ALLOW_GIDS:-}",
      description =
          "Comma-separated gids allowed on the socket (SO_PEERCRED); others are closed at once."
              + " Empty for any. Env: ROUTESYNC_ALLOW_GIDS")
  IdList allowGids;

  @Option(
      names = "--log-format",
      converter = LogFormatConverter.class,
      defaultValue = "${env:ROUTESYNC_LOG_FORMAT:-" + LogFormat.DEFAULT_TEXT + "}",
      description =
          "text, or json for one JSON object per line (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_LOG_FORMAT")
  LogFormat logFormat;

  /**
   * How the process writes its log. Not part of {@link AgentConfig}: logging belongs to the
   * process, which applies it before the agent starts.
   */
  public LogFormat logFormat() {
    return logFormat;
  }

  /**
   * The configuration the flags describe; the records check every value.
   *
   * @throws IllegalArgumentException naming the flag and the problem, in one line
   */
  public AgentConfig toConfig() {
    AgentConfig config =
        new AgentConfig(
            source,
            kubeconfig,
            WatchSettings.of(namespaces.names(), labelSelector, relistAfter, resync, watchSilence),
            new CoalescerSettings(debounce, maxDelay, maxBatch),
            socket,
            adminHost,
            adminPort,
            nodeName,
            listenTcp,
            grpcReflection,
            shutdownTimeout,
            ConnectionLimits.of(
                maxConnections, headerTimeout, idleTimeout, bodyTimeout, maxStreams),
            new DriftSettings(driftDetector, driftGrace),
            new StateSettings(stateFile, stateFlush),
            PeerPolicy.of(allowUids.ids(), allowGids.ids()),
            java.util.Optional.ofNullable(zone),
            new DebugListener(debugHost, debugPort));
    // The one rule between two flags, so it is the flags': the configuration holds the address,
    // not the acknowledgement.
    if (config.listenTcp().isPresent() && !listenTcpInsecure) {
      throw new IllegalArgumentException(
          "--listen-tcp serves the API to every local user (TCP has no group check, unlike the"
              + " socket); add --listen-tcp-insecure (or ROUTESYNC_LISTEN_TCP_INSECURE=true) to"
              + " accept that");
    }
    return config;
  }
}
