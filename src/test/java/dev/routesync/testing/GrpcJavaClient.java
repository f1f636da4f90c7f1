package dev.routesync.testing;

import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.StatusRequest;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * grpc-java over the agent's Unix socket: an independent client (Netty, not Vert.x) built from
 * plain method descriptors, as any sidecar written against the proto would be.
 */
public final class GrpcJavaClient implements AutoCloseable {

  public static final MethodDescriptor<ResolveRequest, ServiceEndpoints> RESOLVE =
      unary("Resolve", ResolveRequest.getDefaultInstance(), ServiceEndpoints.getDefaultInstance());
  public static final MethodDescriptor<ListRequest, ListResponse> LIST =
      unary("List", ListRequest.getDefaultInstance(), ListResponse.getDefaultInstance());
  public static final MethodDescriptor<StatusRequest, StatusResponse> STATUS =
      unary("Status", StatusRequest.getDefaultInstance(), StatusResponse.getDefaultInstance());
  public static final MethodDescriptor<WatchRequest, WatchEvent> WATCH =
      MethodDescriptor.<WatchRequest, WatchEvent>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName("routesync.v1.Registry/Watch")
          .setRequestMarshaller(ProtoUtils.marshaller(WatchRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(WatchEvent.getDefaultInstance()))
          .build();

  /** No test keeps a Watch open longer than this. */
  public static final Duration WATCH_DEADLINE = Duration.ofMinutes(2);

  private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
  private final ManagedChannel channel;

  /**
   * With grpc-java's default settings, as a sidecar would connect: its {@code :authority} is then
   * the socket's path, which the agent's socket accepts ({@code serve.AnyAuthority}).
   */
  public GrpcJavaClient(Path socket) {
    this(builder(socket));
  }

  /** Sending {@code authority} as every request's {@code :authority} instead of the path. */
  public GrpcJavaClient(Path socket, String authority) {
    this(builder(socket).overrideAuthority(authority));
  }

  private GrpcJavaClient(NettyChannelBuilder builder) {
    channel = builder.eventLoopGroup(group).build();
  }

  private static NettyChannelBuilder builder(Path socket) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollDomainSocketChannel.class)
        // A Watch snapshot of every namespace is one message: ~10 MB at 150,000 endpoints, past
        // grpc-java's 4 MiB default, which a sidecar following everything raises as well.
        .maxInboundMessageSize(64 << 20)
        .usePlaintext();
  }

  private static <Q, R> MethodDescriptor<Q, R> unary(
      String method, com.google.protobuf.Message request, com.google.protobuf.Message response) {
    @SuppressWarnings("unchecked")
    MethodDescriptor.Marshaller<Q> requests =
        (MethodDescriptor.Marshaller<Q>) ProtoUtils.marshaller(request);
    @SuppressWarnings("unchecked")
    MethodDescriptor.Marshaller<R> responses =
        (MethodDescriptor.Marshaller<R>) ProtoUtils.marshaller(response);
    return MethodDescriptor.<Q, R>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("routesync.v1.Registry/" + method)
        .setRequestMarshaller(requests)
        .setResponseMarshaller(responses)
        .build();
  }

  public ManagedChannel channel() {
    return channel;
  }

  public CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  public ServiceEndpoints resolve(String namespace, String name) {
    return ClientCalls.blockingUnaryCall(
        channel,
        RESOLVE,
        options(),
        ResolveRequest.newBuilder().setNamespace(namespace).setName(name).build());
  }

  public ListResponse list(String namespace) {
    return ClientCalls.blockingUnaryCall(
        channel, LIST, options(), ListRequest.newBuilder().setNamespace(namespace).build());
  }

  public StatusResponse status() {
    return ClientCalls.blockingUnaryCall(
        channel, STATUS, options(), StatusRequest.getDefaultInstance());
  }

  /**
   * Opens a Watch; events go to {@code observer} on grpc-java's threads. It has a deadline too, far
   * longer than any test keeps a stream open, so a stream nobody closes cannot outlive its test.
   */
  public void watch(WatchRequest request, StreamObserver<WatchEvent> observer) {
    watch(request, observer, WATCH_DEADLINE);
  }

  /** As {@link #watch(WatchRequest, StreamObserver)}, for a test whose stream spans an episode. */
  public void watch(WatchRequest request, StreamObserver<WatchEvent> observer, Duration deadline) {
    ClientCalls.asyncServerStreamingCall(
        channel.newCall(
            WATCH,
            CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)),
        request,
        observer);
  }

  /**
   * Opens {@code count} Watch streams on everything and waits until each has its first event (the
   * snapshot), so every stream is registered on the server when this returns.
   */
  public List<WatchRecorder> watchAll(int count, Duration timeout) {
    List<WatchRecorder> watchers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      WatchRecorder watcher = new WatchRecorder();
      watch(WatchRequest.getDefaultInstance(), watcher);
      watchers.add(watcher);
    }
    Awaitility.await()
        .atMost(timeout)
        .until(() -> watchers.stream().allMatch(w -> !w.events().isEmpty()));
    return watchers;
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }
}
