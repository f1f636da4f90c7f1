package dev.routesync.config;

import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.units.Durations;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent's validated, effective configuration.
 *
 * @param source which resource to watch
 * @param kubeconfig explicit kubeconfig file, or empty for fabric8's discovery (in-cluster service
 *     account, then {@code KUBECONFIG}, then {@code ~/.kube/config})
 * @param watch what to watch and how to recover
 * @param coalescer how bursts are batched
 * @param socket the Unix socket sidecars connect to
 * @param adminHost address of the admin listener
 * @param adminPort port of the admin listener, 0 for none
 * @param nodeName this node's name (downward API), for logs and diagnostics; may be empty
 * @param listenTcp also serve the socket's API on this loopback address
 * @param grpcReflection serve gRPC server reflection
 * @param shutdownTimeout how long a graceful stop may take before connections are cut
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
    Duration shutdownTimeout) {

  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

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
        true,
        DEFAULT_SHUTDOWN_TIMEOUT);
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
    listenTcp.ifPresent(
        address -> {
          if (address.getAddress() == null || !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException(
                "--listen-tcp must be a loopback address (127.0.0.0/8 or ::1), got " + address);
          }
        });
    if (adminPort < 0 || adminPort > 65535) {
      throw new IllegalArgumentException("admin port must be 0..65535, got " + adminPort);
    }
  }

  // Withers go through the canonical constructor, never the short one above: that one fills in
  // defaults, and `routesync demo` lost --listen-tcp, --grpc-reflection and --shutdown-timeout
  // that way. AgentConfigWithersTest checks every field against every wither.

  public AgentConfig withSocket(Path newSocket) {
    return new AgentConfig(
        source,
        kubeconfig,
        watch,
        coalescer,
        newSocket,
        adminHost,
        adminPort,
        nodeName,
        listenTcp,
        grpcReflection,
        shutdownTimeout);
  }

  public AgentConfig withKubeconfig(Path newKubeconfig) {
    return new AgentConfig(
        source,
        Optional.of(newKubeconfig),
        watch,
        coalescer,
        socket,
        adminHost,
        adminPort,
        nodeName,
        listenTcp,
        grpcReflection,
        shutdownTimeout);
  }

  /** One line for the start-up log. */
  public String describe() {
    List<String> namespaces = watch.namespaces();
    return "source="
        + source.name().toLowerCase(java.util.Locale.ROOT)
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
        + Durations.format(shutdownTimeout);
  }
}
