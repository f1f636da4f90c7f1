package dev.routesync.testing;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real gRPC backends (grpc-java, its own Netty) for xDS interop tests: each listens on its own
 * loopback address ({@code 127.0.0.2}, {@code 127.0.0.3}, ...; Linux routes all of 127/8 to lo) on
 * an ephemeral port, and answers {@link #WHO} with its id, so a test can tell where each call went.
 *
 * <p>Distinct IPs, not distinct ports on one IP: the agent publishes each endpoint IP once per
 * Service (it merges duplicates across slices), as the EndpointSlice controller would list pods.
 */
public final class XdsBackends implements AutoCloseable {

  /** A unary method with a UTF-8 string on both sides: no proto needed. */
  public static final MethodDescriptor<String, String> WHO =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("routesync.test.Backend/Who")
          .setRequestMarshaller(Utf8.INSTANCE)
          .setResponseMarshaller(Utf8.INSTANCE)
          .build();

  /** One backend: its id, where it listens, and how many calls it has answered. */
  public record Backend(String id, String ip, int port, Server server, AtomicInteger calls) {}

  private final List<Backend> backends = new ArrayList<>();

  /** Starts backends named {@code ids}, the i-th on {@code 127.0.0.(2+i)}. */
  public static XdsBackends start(String... ids) throws IOException {
    XdsBackends started = new XdsBackends();
    try {
      for (int i = 0; i < ids.length; i++) {
        started.backends.add(backend(ids[i], "127.0.0." + (2 + i)));
      }
    } catch (IOException | RuntimeException e) {
      started.close();
      throw e;
    }
    return started;
  }

  /**
   * One backend named {@code id} on {@code ip} (e.g. {@code ::1}, or 127.0.0.1 where localhost is)
   * and an ephemeral port.
   */
  public static XdsBackends startOn(String id, String ip) throws IOException {
    XdsBackends started = new XdsBackends();
    started.backends.add(backend(id, ip));
    return started;
  }

  private static Backend backend(String id, String ip) throws IOException {
    AtomicInteger calls = new AtomicInteger();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("routesync.test.Backend")
            .addMethod(
                WHO,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      calls.incrementAndGet();
                      response.onNext(id);
                      response.onCompleted();
                    }))
            .build();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(ip, 0))
            .addService(service)
            .build()
            .start();
    return new Backend(id, ip, server.getPort(), server, calls);
  }

  public Backend get(String id) {
    return backends.stream()
        .filter(b -> b.id().equals(id))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no backend " + id));
  }

  public List<Backend> all() {
    return List.copyOf(backends);
  }

  /** One call of {@link #WHO} on {@code channel} with this deadline; the id of who answered. */
  public static String who(Channel channel, Duration deadline) {
    return ClientCalls.blockingUnaryCall(
        channel,
        WHO,
        CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS),
        "who");
  }

  @Override
  public void close() {
    for (Backend backend : backends) {
      backend.server().shutdownNow();
    }
    for (Backend backend : backends) {
      try {
        backend.server().awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** UTF-8 text as a gRPC message. */
  private enum Utf8 implements MethodDescriptor.Marshaller<String> {
    INSTANCE;

    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
