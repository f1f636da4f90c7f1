package dev.routesync.serve;

import io.vertx.grpc.server.Service;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * How an {@link ApiServer} listens and what it serves besides the registry, in the style of
 * Vert.x's {@code *Options}: start from {@link #onSocket} and name what differs from the defaults
 * with the {@code with...} methods. Immutable; every {@code with...} returns a new value, validated
 * as it is built.
 *
 * @param socketPath the Unix socket sidecars connect to (required)
 * @param tcpAddress a loopback TCP address served with the same handler as well; default {@link
 *     #DEFAULT_TCP_ADDRESS} (none)
 * @param reflection whether gRPC server reflection is served; default {@link #DEFAULT_REFLECTION}
 * @param guards the connection guards that enforce {@code limits}: they must be the ones the
 *     server's Vert.x was built with ({@link ConnectionGuards#transport()}); default {@link
 *     ConnectionGuards#none()}, which serves without limits
 * @param limits the limits on the socket and on the TCP port; default {@link
 *     ConnectionLimits#DEFAULT}
 * @param extraServices gRPC services served after the agent's own (registry, health, reflection):
 *     for code that measures or extends this exact serving stack, such as the serving benchmark's
 *     no-op service. Their names must differ from each other and from the agent's services; with
 *     reflection on, they are listed too. Default none.
 */
public record ApiServerOptions(
    Path socketPath,
    Optional<InetSocketAddress> tcpAddress,
    boolean reflection,
    ConnectionGuards guards,
    ConnectionLimits limits,
    List<Service> extraServices) {

  /** No TCP listener: the socket only. */
  public static final Optional<InetSocketAddress> DEFAULT_TCP_ADDRESS = Optional.empty();

  /** Reflection is served, so grpcurl and friends work against the socket as they are. */
  public static final boolean DEFAULT_REFLECTION = true;

  public ApiServerOptions {
    Objects.requireNonNull(socketPath, "ApiServerOptions: socketPath is required");
    Objects.requireNonNull(
        tcpAddress, "ApiServerOptions: tcpAddress is required (Optional.empty() for none)");
    Objects.requireNonNull(guards, "ApiServerOptions: guards is required");
    Objects.requireNonNull(limits, "ApiServerOptions: limits is required");
    Objects.requireNonNull(extraServices, "ApiServerOptions: extraServices is required");
    // TCP carries no peer credentials and no group check: only local processes may reach it.
    tcpAddress.ifPresent(
        address -> {
          if (address.getAddress() == null || !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException(
                "ApiServerOptions: tcpAddress "
                    + ListenFailures.hostPort(address.getHostString(), address.getPort())
                    + " is not a loopback address (127.0.0.0/8 or ::1)");
          }
        });
    extraServices = List.copyOf(extraServices);
    // Vert.x would reject a repeat too, but only when serving starts and as "Duplicated name".
    Set<String> names = new HashSet<>();
    for (Service extra : extraServices) {
      String name = extra.name().fullyQualifiedName();
      if (!names.add(name)) {
        throw new IllegalArgumentException(
            "ApiServerOptions: extra gRPC service " + name + " is given twice");
      }
    }
  }

  /** The defaults, serving on {@code socketPath}. */
  public static ApiServerOptions onSocket(Path socketPath) {
    return new ApiServerOptions(
        socketPath,
        DEFAULT_TCP_ADDRESS,
        DEFAULT_REFLECTION,
        ConnectionGuards.none(),
        ConnectionLimits.DEFAULT,
        List.of());
  }

  /** Also (or, when empty, no longer) serving on this loopback TCP address. */
  public ApiServerOptions withTcpAddress(Optional<InetSocketAddress> address) {
    return new ApiServerOptions(socketPath, address, reflection, guards, limits, extraServices);
  }

  public ApiServerOptions withReflection(boolean serve) {
    return new ApiServerOptions(socketPath, tcpAddress, serve, guards, limits, extraServices);
  }

  /** {@code limits}, enforced by {@code guards} (see {@link #guards()}). */
  public ApiServerOptions withLimits(ConnectionGuards guards, ConnectionLimits limits) {
    return new ApiServerOptions(socketPath, tcpAddress, reflection, guards, limits, extraServices);
  }

  public ApiServerOptions withExtraServices(List<Service> services) {
    return new ApiServerOptions(socketPath, tcpAddress, reflection, guards, limits, services);
  }
}
