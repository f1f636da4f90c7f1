package dev.routesync.xds;

import dev.routesync.testing.RawBytes;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A workload's gRPC server for xDS interop tests (grpc-java, Netty, on 127.0.0.1 unless told
 * otherwise, and an ephemeral port): its one unary method {@value #METHOD} answers any request with
 * this backend's id as UTF-8 bytes. Raw bytes both ways, so a client in any language calls it
 * without a {@code .proto}.
 */
final class IdBackend implements AutoCloseable {

  static final String SERVICE = "routesync.interop.Backend";
  static final String METHOD = SERVICE + "/Who";

  private static final MethodDescriptor<byte[], byte[]> WHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(METHOD)
          .setRequestMarshaller(RawBytes.MARSHALLER)
          .setResponseMarshaller(RawBytes.MARSHALLER)
          .build();

  private final String id;
  private final Server server;
  private final AtomicInteger calls = new AtomicInteger();

  IdBackend(String id) throws IOException {
    this(id, "127.0.0.1");
  }

  /** A backend listening on {@code host} (e.g. {@code ::1}) and an ephemeral port. */
  IdBackend(String id, String host) throws IOException {
    this.id = id;
    byte[] answer = id.getBytes(StandardCharsets.UTF_8);
    ServerServiceDefinition service =
        ServerServiceDefinition.builder(SERVICE)
            .addMethod(
                WHO,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      calls.incrementAndGet();
                      response.onNext(answer);
                      response.onCompleted();
                    }))
            .build();
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
            .addService(service)
            .build()
            .start();
  }

  String id() {
    return id;
  }

  int port() {
    return server.getPort();
  }

  /** Calls answered so far. */
  int calls() {
    return calls.get();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
