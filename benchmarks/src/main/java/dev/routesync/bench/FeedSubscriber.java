package dev.routesync.bench;

import dev.routesync.api.v1.ServiceEndpoints;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A grpc-java Watch subscriber on the agent's Unix socket that keeps, per feed object ({@link
 * FeedServer}), the newest write it has received (the sequence its pod names carry) and when that
 * arrived, and counts the events (versions) it was sent.
 */
final class FeedSubscriber implements AutoCloseable {

  private static final MethodDescriptor<WatchRequest, WatchEvent> WATCH =
      MethodDescriptor.<WatchRequest, WatchEvent>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName("routesync.v1.Registry/Watch")
          .setRequestMarshaller(ProtoUtils.marshaller(WatchRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(WatchEvent.getDefaultInstance()))
          .build();

  /** Called on the gRPC thread for each received state of an object. */
  interface Receipt {
    void received(int index, long seq, long nanos);
  }

  private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
  private final ManagedChannel channel;
  private final AtomicLongArray seen;
  private final AtomicLongArray seenAt;
  private final AtomicInteger events = new AtomicInteger();
  private final AtomicInteger known = new AtomicInteger();
  private final AtomicReference<Throwable> failed = new AtomicReference<>();

  FeedSubscriber(Path socket, int objects, Receipt receipt) {
    seen = new AtomicLongArray(objects);
    seenAt = new AtomicLongArray(objects);
    for (int i = 0; i < objects; i++) {
      seen.set(i, -1);
    }
    channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .eventLoopGroup(group)
            .channelType(EpollDomainSocketChannel.class)
            .overrideAuthority("localhost")
            .usePlaintext()
            .build();
    ClientCalls.asyncServerStreamingCall(
        channel.newCall(WATCH, CallOptions.DEFAULT),
        WatchRequest.getDefaultInstance(),
        new StreamObserver<>() {
          @Override
          public void onNext(WatchEvent event) {
            long now = System.nanoTime();
            events.incrementAndGet();
            for (ServiceEndpoints service : event.getUpsertedList()) {
              int index = FeedScript.indexOf(service.getName());
              if (index < 0 || index >= objects || service.getEndpointsCount() == 0) {
                continue;
              }
              long seq = FeedScript.seqOf(service.getEndpoints(0).getPod());
              if (seen.getAndSet(index, seq) < 0) {
                known.incrementAndGet();
              }
              seenAt.set(index, now);
              if (receipt != null) {
                receipt.received(index, seq, now);
              }
            }
          }

          @Override
          public void onError(Throwable error) {
            failed.set(error);
          }

          @Override
          public void onCompleted() {
            failed.set(new IllegalStateException("the Watch ended"));
          }
        });
  }

  /** Objects with endpoints received at least once. */
  int known() {
    return known.get();
  }

  long seen(int index) {
    return seen.get(index);
  }

  long seenAt(int index) {
    return seenAt.get(index);
  }

  int events() {
    return events.get();
  }

  Throwable failure() {
    return failed.get();
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
