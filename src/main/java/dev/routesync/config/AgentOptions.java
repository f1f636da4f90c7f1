package dev.routesync.config;

import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.table.KubernetesNames;
import dev.routesync.units.Durations;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The agent's flags, shared by {@code routesync agent} and {@code routesync demo}. Every flag has
 * an environment-variable twin ({@code --label-selector} / {@code ROUTESYNC_LABEL_SELECTOR}); a
 * flag on the command line wins. Values are checked by {@link #toConfig()}.
 */
public final class AgentOptions {

  public static final String DEFAULT_SOCKET = "/var/run/routesync/routesync.sock";

  // The sane range of every duration flag (the README's configuration table says the same).
  // Beyond them a value is a typo or a unit mistake: `--resync 1ms` relisted the whole cluster
  // 87 times in 4 s, and hours of debounce overflowed the coalescer's nanosecond arithmetic.
  static final Duration MAX_DEBOUNCE = Duration.ofSeconds(10);
  static final Duration MAX_MAX_DELAY = Duration.ofSeconds(60);
  static final Duration MIN_RELIST_AFTER = Duration.ofSeconds(1);
  static final Duration MAX_RELIST_AFTER = Duration.ofHours(1);
  static final Duration MIN_RESYNC = Duration.ofMinutes(1);
  static final Duration MAX_RESYNC = Duration.ofHours(24);
  static final Duration MIN_SHUTDOWN_TIMEOUT = Duration.ofSeconds(1);
  static final Duration MAX_SHUTDOWN_TIMEOUT = Duration.ofMinutes(5);

  @Option(
      names = "--source",
      defaultValue = "${env:ROUTESYNC_SOURCE:-endpointslices}",
      description =
          "endpointslices (default) or endpoints (legacy clusters). Env: ROUTESYNC_SOURCE")
  String source;

  @Option(
      names = "--label-selector",
      defaultValue = "${env:ROUTESYNC_LABEL_SELECTOR:-mesh-managed=true}",
      description =
          "Opt-in label selector, applied by the API server (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_LABEL_SELECTOR")
  String labelSelector;

  @Option(
      names = "--namespace",
      defaultValue = "${env:ROUTESYNC_NAMESPACE:-}",
      description = "Comma-separated namespaces to watch; empty for all. Env: ROUTESYNC_NAMESPACE")
  String namespaces;

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:ROUTESYNC_KUBECONFIG:-}",
      description =
          "Kubeconfig file; empty for in-cluster credentials, then KUBECONFIG, then"
              + " ~/.kube/config. Env: ROUTESYNC_KUBECONFIG")
  String kubeconfig;

  @Option(
      names = "--socket",
      defaultValue = "${env:ROUTESYNC_SOCKET:-" + DEFAULT_SOCKET + "}",
      description =
          "Unix socket sidecars connect to (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_SOCKET")
  String socket;

  @Option(
      names = "--admin-host",
      defaultValue = "${env:ROUTESYNC_ADMIN_HOST:-0.0.0.0}",
      description =
          "Address of the admin listener (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_ADMIN_HOST")
  String adminHost;

  @Option(
      names = "--admin-port",
      defaultValue = "${env:ROUTESYNC_ADMIN_PORT:-9464}",
      description =
          "TCP port for /healthz, /readyz and /metrics; 0 turns it off (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_ADMIN_PORT")
  String adminPort;

  @Option(
      names = "--debounce",
      defaultValue = "${env:ROUTESYNC_DEBOUNCE:-50ms}",
      description =
          "Quiet period before a batch is published, 0..10s (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_DEBOUNCE")
  String debounce;

  @Option(
      names = "--max-delay",
      defaultValue = "${env:ROUTESYNC_MAX_DELAY:-500ms}",
      description =
          "Longest a change waits while changes keep coming, debounce..1m (default:"
              + " ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_MAX_DELAY")
  String maxDelay;

  @Option(
      names = "--max-batch",
      defaultValue = "${env:ROUTESYNC_MAX_BATCH:-5000}",
      description =
          "Dirty services that force a flush (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_MAX_BATCH")
  String maxBatch;

  @Option(
      names = "--relist-after",
      defaultValue = "${env:ROUTESYNC_RELIST_AFTER:-10s}",
      description =
          "Relist after a watch outage longer than this, 1s..1h (default: ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_RELIST_AFTER")
  String relistAfter;

  // Descriptions are format strings to picocli: a literal percent sign is written %%.
  @Option(
      names = "--resync",
      defaultValue = "${env:ROUTESYNC_RESYNC:-10m}",
      description =
          "Anti-entropy relist period, 1m..24h, jittered +-10%%; 0 turns it off (default:"
              + " ${DEFAULT-VALUE})."
              + " Env: ROUTESYNC_RESYNC")
  String resync;

  @Option(
      names = "--listen-tcp",
      defaultValue = "${env:ROUTESYNC_LISTEN_TCP:-}",
      description =
          "Also serve the socket's API on this loopback HOST:PORT (e.g. 127.0.0.1:9465), to every"
              + " local user; needs --listen-tcp-insecure. Empty for none. Env: ROUTESYNC_LISTEN_TCP")
  String listenTcp;

  // TCP has no peer check: the socket's 0660 mode is the only access control the agent has, and
  // a loopback port bypasses it for every user and every pod sharing the node's network. So
  // --listen-tcp is refused unless the operator says, in a separate flag, that they accept it.
  @Option(
      names = "--listen-tcp-insecure",
      defaultValue = "${env:ROUTESYNC_LISTEN_TCP_INSECURE:-false}",
      description =
          "Accept that --listen-tcp serves every local user: TCP has no group check, unlike the"
              + " socket. Required with --listen-tcp. Env: ROUTESYNC_LISTEN_TCP_INSECURE")
  boolean listenTcpInsecure;

  @Option(
      names = "--grpc-reflection",
      defaultValue = "${env:ROUTESYNC_GRPC_REFLECTION:-true}",
      arity = "1",
      description =
          "Serve gRPC server reflection (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_GRPC_REFLECTION")
  String grpcReflection;

  @Option(
      names = "--shutdown-timeout",
      defaultValue = "${env:ROUTESYNC_SHUTDOWN_TIMEOUT:-10s}",
      description =
          "Longest a graceful stop may take, 1s..5m (default: ${DEFAULT-VALUE}). Env:"
              + " ROUTESYNC_SHUTDOWN_TIMEOUT")
  String shutdownTimeout;

  @Option(
      names = "--node-name",
      defaultValue = "${env:ROUTESYNC_NODE_NAME:-${env:NODE_NAME:-}}",
      description =
          "This node's name, from the downward API. Env: ROUTESYNC_NODE_NAME or NODE_NAME")
  String nodeName;

  /**
   * Validates every value and builds the configuration.
   *
   * @throws IllegalArgumentException naming the flag and the problem, in one line
   */
  public AgentConfig toConfig() {
    Source parsedSource = parseSource(source);
    String selector = labelSelector.trim();
    if (selector.isEmpty()) {
      throw new IllegalArgumentException(
          "--label-selector must not be empty: routesync only syncs opted-in Services");
    }
    LabelSelectors.validate(selector);
    List<String> namespaceList = parseNamespaces(namespaces);
    Duration parsedDebounce = duration("--debounce", debounce, Duration.ZERO, MAX_DEBOUNCE);
    Duration parsedMaxDelay = duration("--max-delay", maxDelay, Duration.ZERO, MAX_MAX_DELAY);
    if (parsedMaxDelay.compareTo(parsedDebounce) < 0) {
      throw new IllegalArgumentException(
          "--max-delay (" + maxDelay + ") must be at least --debounce (" + debounce + ")");
    }
    int parsedMaxBatch = integer("--max-batch", maxBatch, 1, 1_000_000);
    Duration parsedRelistAfter =
        duration("--relist-after", relistAfter, MIN_RELIST_AFTER, MAX_RELIST_AFTER);
    Duration parsedResync = offOrDuration("--resync", resync, MIN_RESYNC, MAX_RESYNC);
    int parsedAdminPort = integer("--admin-port", adminPort, 0, 65535);
    if (socket == null || socket.isBlank()) {
      throw new IllegalArgumentException("--socket must not be empty");
    }
    Optional<Path> kubeconfigPath =
        kubeconfig == null || kubeconfig.isBlank()
            ? Optional.empty()
            : Optional.of(Path.of(kubeconfig));
    WatchSettings watch =
        new WatchSettings(
            namespaceList,
            selector,
            parsedRelistAfter,
            parsedResync,
            WatchSettings.DEFAULT_BACKOFF_MIN,
            WatchSettings.DEFAULT_BACKOFF_MAX,
            WatchSettings.DEFAULT_CONNECTIVITY_CHECK);
    Duration parsedShutdownTimeout =
        duration("--shutdown-timeout", shutdownTimeout, MIN_SHUTDOWN_TIMEOUT, MAX_SHUTDOWN_TIMEOUT);
    Optional<InetSocketAddress> parsedListenTcp = parseListenTcp(listenTcp);
    if (parsedListenTcp.isPresent() && !listenTcpInsecure) {
      throw new IllegalArgumentException(
          "--listen-tcp serves the API to every local user (TCP has no group check, unlike the"
              + " socket); add --listen-tcp-insecure (or ROUTESYNC_LISTEN_TCP_INSECURE=true) to"
              + " accept that");
    }
    return new AgentConfig(
        parsedSource,
        kubeconfigPath,
        watch,
        new CoalescerSettings(parsedDebounce, parsedMaxDelay, parsedMaxBatch),
        Path.of(socket),
        adminHost.trim(),
        parsedAdminPort,
        nodeName == null ? "" : nodeName.trim(),
        parsedListenTcp,
        parseBoolean("--grpc-reflection", grpcReflection),
        parsedShutdownTimeout);
  }

  private static Optional<InetSocketAddress> parseListenTcp(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    String trimmed = text.trim();
    int colon = trimmed.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("--listen-tcp: expected HOST:PORT, got '" + text + "'");
    }
    String host = trimmed.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = integer("--listen-tcp port", trimmed.substring(colon + 1), 0, 65535);
    InetAddress address;
    try {
      // Only literals and "localhost": no DNS lookup at start.
      address =
          host.equals("localhost")
              ? InetAddress.getLoopbackAddress()
              : InetAddress.getByAddress(host, literal(host));
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException("--listen-tcp: '" + host + "' is not an IP literal", e);
    }
    if (!address.isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "--listen-tcp must be a loopback address (127.0.0.0/8, ::1 or localhost): sidecars on"
              + " other hosts must not reach the agent; got '"
              + host
              + "'");
    }
    return Optional.of(new InetSocketAddress(address, port));
  }

  private static byte[] literal(String host) throws java.net.UnknownHostException {
    if (host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c))) {
      return InetAddress.getByName(host).getAddress(); // a literal: parsed, never resolved
    }
    throw new java.net.UnknownHostException(host);
  }

  private static boolean parseBoolean(String flag, String text) {
    String trimmed = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (trimmed.equals("true") || trimmed.equals("false")) {
      return Boolean.parseBoolean(trimmed);
    }
    throw new IllegalArgumentException(flag + " must be true or false, got '" + text + "'");
  }

  private static Source parseSource(String text) {
    try {
      return Source.valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--source must be endpointslices or endpoints, got '" + text + "'", e);
    }
  }

  private static List<String> parseNamespaces(String text) {
    if (text == null || text.isBlank()) {
      return List.of();
    }
    List<String> result =
        Arrays.stream(text.split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .distinct()
            .toList();
    for (String namespace : result) {
      if (!KubernetesNames.isDns1123Label(namespace)) {
        throw new IllegalArgumentException(
            "--namespace '" + namespace + "' is not a valid namespace name");
      }
    }
    return result;
  }

  /** {@code text} as a duration within {@code min..max}, or a one-line error naming the range. */
  private static Duration duration(String flag, String text, Duration min, Duration max) {
    Duration value = parseDuration(flag, text);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          flag
              + " must be between "
              + Durations.format(min)
              + " and "
              + Durations.format(max)
              + ", got "
              + text.trim());
    }
    return value;
  }

  /** As {@link #duration}, where {@code 0} also means off. */
  private static Duration offOrDuration(String flag, String text, Duration min, Duration max) {
    Duration value = parseDuration(flag, text);
    if (!value.isZero() && (value.compareTo(min) < 0 || value.compareTo(max) > 0)) {
      throw new IllegalArgumentException(
          flag
              + " must be 0 (off) or between "
              + Durations.format(min)
              + " and "
              + Durations.format(max)
              + ", got "
              + text.trim());
    }
    return value;
  }

  private static Duration parseDuration(String flag, String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(flag + ": " + e.getMessage(), e);
    }
  }

  private static int integer(String flag, String text, int min, int max) {
    int value;
    try {
      value = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": '" + text + "' is not a whole number", e);
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          flag + " must be between " + min + " and " + max + ", got " + value);
    }
    return value;
  }
}
