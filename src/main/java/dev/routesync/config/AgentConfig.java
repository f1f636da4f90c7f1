package dev.routesync.config;

import dev.routesync.drift.DriftSettings;
import dev.routesync.kube.WatchSettings;
import dev.routesync.serve.ConnectionLimits;
import dev.routesync.serve.PeerPolicy;
import dev.routesync.state.StateSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.table.KubernetesNames;
import dev.routesync.units.Durations;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The agent's validated, effective configuration. Each value is checked once, by the record that
 * holds it (this one, {@link WatchSettings}, {@link CoalescerSettings}), whether it comes from the
 * flags or from code; messages name the flag, because that is what an operator can change.
 *
 * @param source which resource to watch
 * @param kubeconfig explicit kubeconfig file, or empty for fabric8's discovery (in-cluster service
 *     account, then {@code KUBECONFIG}, then {@code ~/.kube/config})
 * @param watch what to watch and how to recover
 * @param coalescer how bursts are batched
 * @param socket the Unix socket sidecars connect to
 * @param adminHost address of the admin listener
 * @param adminPort port of the admin listener, 0 for none
 * @param nodeName this node's name (downward API): the drift detector watches this node's pods;
 *     empty when unknown (the detector is then off), else a DNS-1123 subdomain
 * @param listenTcp also serve the socket's API on this loopback address
 * @param grpcReflection serve gRPC server reflection
 * @param shutdownTimeout how long a graceful stop may take before connections are cut
 * @param limits connection cap and timeouts of the socket (and TCP) listener; the admin listener
 *     takes the timeouts with its own small cap
 * @param drift whether the drift detector runs, and its grace period
 * @param state where the table is persisted for warm starts, and how often ({@link
 *     StateSettings#OFF} when off)
 * @param peers which local uids and gids may stay connected to the socket
 * @param zone {@code --zone}: this node's zone for the topology decisions, instead of its Node's
 *     {@code topology.kubernetes.io/zone} label; empty to read the label
 * @param debug the loopback debug listener ({@link DebugListener#OFF} when off)
 */
public record AgentConfig(
    Source source,
    Optional<Path> kubeconfig,
    WatchSettings watch,
    CoalescerSettings coalescer,
    Path socket,
    String adminHost,
    int adminPort,
    String nodeName,
    Optional<InetSocketAddress> listenTcp,
    boolean grpcReflection,
    Duration shutdownTimeout,
    ConnectionLimits limits,
    DriftSettings drift,
    StateSettings state,
    PeerPolicy peers,
    Optional<String> zone,
    DebugListener debug) {

  // Defaults as the flags write them: AgentOptions' defaultValue strings read these, and the
  // typed constants are parsed from them, so --help cannot disagree with the record.
  public static final String DEFAULT_SOURCE_TEXT = "endpointslices";
  public static final String DEFAULT_SOCKET = "/var/run/routesync/routesync.sock";
  public static final String DEFAULT_ADMIN_HOST = "0.0.0.0";
  public static final int DEFAULT_ADMIN_PORT = 9464;
  public static final boolean DEFAULT_GRPC_REFLECTION = true;
  public static final String DEFAULT_SHUTDOWN_TIMEOUT_TEXT = "10s";

  public static final Source DEFAULT_SOURCE = Source.of(DEFAULT_SOURCE_TEXT);
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT =
      Durations.parse(DEFAULT_SHUTDOWN_TIMEOUT_TEXT);

  // The sane range of --shutdown-timeout (docs/configuration.md says the same): beyond
  // it a value is a typo or a unit mistake, and the pod must be given longer than it to stop.
  public static final Duration MIN_SHUTDOWN_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration MAX_SHUTDOWN_TIMEOUT = Duration.ofMinutes(5);

  /** Without TCP, with reflection, and the default shutdown timeout. */
  public AgentConfig(
      Source source,
      Optional<Path> kubeconfig,
      WatchSettings watch,
      CoalescerSettings coalescer,
      Path socket,
      String adminHost,
      int adminPort,
      String nodeName) {
    this(
        source,
        kubeconfig,
        watch,
        coalescer,
        socket,
        adminHost,
        adminPort,
        nodeName,
        Optional.empty(),
        DEFAULT_GRPC_REFLECTION,
        DEFAULT_SHUTDOWN_TIMEOUT,
        ConnectionLimits.DEFAULT,
        DriftSettings.DEFAULT,
        StateSettings.OFF,
        PeerPolicy.ANY,
        Optional.empty(),
        DebugListener.OFF);
  }

  /**
   * Everything but the drift detector's settings, which take their defaults; no persisted state and
   * any peer (configurations built in code: tests, tools).
   */
  public AgentConfig(
      Source source,
      Optional<Path> kubeconfig,
      WatchSettings watch,
      CoalescerSettings coalescer,
      Path socket,
      String adminHost,
      int adminPort,
      String nodeName,
      Optional<InetSocketAddress> listenTcp,
      boolean grpcReflection,
      Duration shutdownTimeout,
      ConnectionLimits limits) {
    this(
        source,
        kubeconfig,
        watch,
        coalescer,
        socket,
        adminHost,
        adminPort,
        nodeName,
        listenTcp,
        grpcReflection,
        shutdownTimeout,
        limits,
        DriftSettings.DEFAULT,
        StateSettings.OFF,
        PeerPolicy.ANY,
        Optional.empty(),
        DebugListener.OFF);
  }

  public AgentConfig {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(kubeconfig, "kubeconfig");
    Objects.requireNonNull(watch, "watch");
    Objects.requireNonNull(coalescer, "coalescer");
    Objects.requireNonNull(socket, "socket");
    Objects.requireNonNull(adminHost, "adminHost");
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(listenTcp, "listenTcp");
    Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(drift, "drift");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(peers, "peers");
    Objects.requireNonNull(debug, "debug");
    zone = zone == null ? Optional.empty() : zone.map(String::trim).filter(z -> !z.isEmpty());
    zone.ifPresent(AgentConfig::requireZone);
    if (!nodeName.isEmpty()) {
      try {
        KubernetesNames.requireNodeName(nodeName);
      } catch (IllegalArgumentException e) { // the one rule's message, naming the flag
        throw new IllegalArgumentException("--node-name: " + e.getMessage(), e);
      }
    }
    if (socket.toString().isBlank()) {
      throw new IllegalArgumentException("--socket must not be empty");
    }
    if (adminPort < 0 || adminPort > 65535) {
      throw new IllegalArgumentException(
          "--admin-port must be between 0 and 65535, got " + adminPort);
    }
    listenTcp.ifPresent(
        address -> {
          if (address.getAddress() == null || !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException(
                "--listen-tcp must be a loopback address (127.0.0.0/8, ::1 or localhost): sidecars"
                    + " on other hosts must not reach the agent; got '"
                    + (address.getAddress() == null
                        ? address.getHostString()
                        : address.getAddress().getHostAddress())
                    + "'");
          }
        });
    Durations.requireWithin(
        "--shutdown-timeout", shutdownTimeout, MIN_SHUTDOWN_TIMEOUT, MAX_SHUTDOWN_TIMEOUT);
  }

  // Withers copy every field through the Builder, never through the short constructors above:
  // those fill in defaults, and `routesync demo` lost --listen-tcp, --grpc-reflection and
  // --shutdown-timeout that way. AgentConfigWithersTest checks every field against every wither.

  public AgentConfig withSocket(Path newSocket) {
    return with(b -> b.socket = newSocket);
  }

  public AgentConfig withKubeconfig(Path newKubeconfig) {
    return with(b -> b.kubeconfig = Optional.of(newKubeconfig));
  }

  public AgentConfig withDrift(DriftSettings newDrift) {
    return with(b -> b.drift = newDrift);
  }

  public AgentConfig withNodeName(String newNodeName) {
    return with(b -> b.nodeName = newNodeName);
  }

  public AgentConfig withState(StateSettings newState) {
    return with(b -> b.state = newState);
  }

  public AgentConfig withZone(String newZone) {
    return with(b -> b.zone = Optional.of(newZone));
  }

  public AgentConfig withPeers(PeerPolicy newPeers) {
    return with(b -> b.peers = newPeers);
  }

  public AgentConfig withLimits(ConnectionLimits newLimits) {
    return with(b -> b.limits = newLimits);
  }

  public AgentConfig withDebug(DebugListener newDebug) {
    return with(b -> b.debug = newDebug);
  }

  public AgentConfig withSource(Source newSource) {
    return with(b -> b.source = newSource);
  }

  public AgentConfig withWatch(WatchSettings newWatch) {
    return with(b -> b.watch = newWatch);
  }

  private AgentConfig with(Consumer<Builder> change) {
    Builder builder = new Builder(this);
    change.accept(builder);
    return builder.build();
  }

  /** Every field of a configuration, to change some and build anew (the record checks them). */
  private static final class Builder {
    Source source;
    Optional<Path> kubeconfig;
    WatchSettings watch;
    CoalescerSettings coalescer;
    Path socket;
    String adminHost;
    int adminPort;
    String nodeName;
    Optional<InetSocketAddress> listenTcp;
    boolean grpcReflection;
    Duration shutdownTimeout;
    ConnectionLimits limits;
    DriftSettings drift;
    StateSettings state;
    PeerPolicy peers;
    Optional<String> zone;
    DebugListener debug;

    Builder(AgentConfig from) {
      source = from.source;
      kubeconfig = from.kubeconfig;
      watch = from.watch;
      coalescer = from.coalescer;
      socket = from.socket;
      adminHost = from.adminHost;
      adminPort = from.adminPort;
      nodeName = from.nodeName;
      listenTcp = from.listenTcp;
      grpcReflection = from.grpcReflection;
      shutdownTimeout = from.shutdownTimeout;
      limits = from.limits;
      drift = from.drift;
      state = from.state;
      peers = from.peers;
      zone = from.zone;
      debug = from.debug;
    }

    AgentConfig build() {
      return new AgentConfig(
          source,
          kubeconfig,
          watch,
          coalescer,
          socket,
          adminHost,
          adminPort,
          nodeName,
          listenTcp,
          grpcReflection,
          shutdownTimeout,
          limits,
          drift,
          state,
          peers,
          zone,
          debug);
    }
  }

  /**
   * A zone is a label value: at most 63 letters, digits, '-', '_' and '.', beginning and ending
   * with a letter or digit. Any other never matches an endpoint's zone or hint.
   */
  private static void requireZone(String zone) {
    if (zone.length() > 63 || !zone.matches("[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")) {
      throw new IllegalArgumentException(
          "--zone: '"
              + zone
              + "' is not a label value (at most 63 letters, digits, '-', '_' and '.', beginning"
              + " and ending with a letter or digit)");
    }
  }

  /** One line for the start-up log. */
  public String describe() {
    List<String> namespaces = watch.namespaces();
    return "source="
        + source.flagName()
        + " label-selector='"
        + watch.labelSelector()
        + "' namespaces="
        + (namespaces.isEmpty() ? "all" : String.join(",", namespaces))
        + " kubeconfig="
        + kubeconfig.map(Path::toString).orElse("auto")
        + " socket="
        + socket
        + " admin="
        + (adminPort == 0 ? "off" : adminHost + ":" + adminPort)
        + " debounce="
        + Durations.format(coalescer.debounce())
        + " max-delay="
        + Durations.format(coalescer.maxDelay())
        + " max-batch="
        + coalescer.maxBatch()
        + " relist-after="
        + Durations.format(watch.relistAfter())
        + " resync="
        + Durations.format(watch.resync())
        + " node="
        + (nodeName.isEmpty() ? "unknown" : nodeName)
        + " listen-tcp="
        + listenTcp.map(a -> a.getAddress().getHostAddress() + ":" + a.getPort()).orElse("off")
        + " grpc-reflection="
        + grpcReflection
        + " shutdown-timeout="
        + Durations.format(shutdownTimeout)
        + " max-connections="
        + limits.maxConnections()
        + " header-timeout="
        + Durations.format(limits.headerTimeout())
        + " idle-timeout="
        + Durations.format(limits.idleTimeout())
        + " body-timeout="
        + Durations.format(limits.bodyTimeout())
        + " max-streams="
        + limits.maxStreams()
        + " drift-detector="
        + drift.enabled()
        + " drift-grace="
        + Durations.format(drift.grace())
        + " watch-silence="
        + Durations.format(watch.watchSilence())
        + " state-file="
        + state.file().map(Path::toString).orElse("off")
        + " state-flush="
        + Durations.format(state.flush())
        + " allow-peers="
        + peers.describe();
  }
}
