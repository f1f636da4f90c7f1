package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawBytes;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fan-out: a changed Service is encoded once per version, however many Watch streams send it, and
 * every subscriber, decoding with grpc-java, receives the same, correct message.
 */
class WatchFanOutTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int STREAMS = 8;

  /** Watch with the response kept as the bytes on the wire, to compare them across streams. */
  private static final MethodDescriptor<WatchRequest, byte[]> RAW_WATCH =
      GrpcJavaClient.WATCH.toBuilder(
              ProtoUtils.marshaller(WatchRequest.getDefaultInstance()), RawBytes.MARSHALLER)
          .build();

  @Test
  void aChangeIsEncodedOnceAndEveryStreamGetsTheSameBytes() throws Exception {
    try (ServeHarness serve = new ServeHarness();
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "cart", 3);
      serve.put("bank", "ledger", 2);
      List<RawWatcher> raw = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        raw.add(watch(grpc, WatchRequest.getDefaultInstance()));
      }
      WatchRecorder typed = new WatchRecorder(); // grpc-java's own protobuf decoding
      grpc.watch(WatchRequest.getDefaultInstance(), typed);
      await().atMost(WAIT).until(() -> raw.stream().allMatch(w -> w.messages.size() == 1));
      await().atMost(WAIT).until(() -> typed.events().size() == 1);
      long encodesBefore = serve.server().watchEncodings().encodes();

      RoutingTable changed = serve.put("shop", "cart", 5);

      await().atMost(WAIT).until(() -> raw.stream().allMatch(w -> w.messages.size() == 2));
      await().atMost(WAIT).until(() -> typed.events().size() == 2);
      // One encode for the one changed Service, not one per stream (STREAMS + 1 before sharing).
      assertThat(serve.server().watchEncodings().encodes() - encodesBefore).isEqualTo(1);
      byte[] first = raw.get(0).messages.get(1);
      for (RawWatcher watcher : raw) {
        assertThat(watcher.messages.get(1)).isEqualTo(first);
      }
      WatchEvent expected =
          WatchEvent.newBuilder()
              .setVersion(changed.version())
              .addUpserted(ProtoMapping.service(changed.get(key("shop", "cart")).orElseThrow()))
              .build();
      assertThat(WatchEvent.parseFrom(first)).isEqualTo(expected);
      assertThat(first).isEqualTo(expected.toByteArray()); // field order as protobuf-java's
      assertThat(typed.events().get(1)).isEqualTo(expected);
      assertThat(typed.state().get("shop/cart").getEndpointsCount()).isEqualTo(5);
    }
  }

  @Test
  void filteredStreamsShareTheEncodingsOfWhatTheyFollow() throws Exception {
    try (ServeHarness serve = new ServeHarness();
        GrpcJavaClient grpc = new GrpcJavaClient(serve.socket())) {
      serve.put("shop", "cart", 1);
      serve.put("bank", "ledger", 1);
      List<RawWatcher> everything = new ArrayList<>();
      List<RawWatcher> shopOnly = new ArrayList<>();
      for (int i = 0; i < STREAMS / 2; i++) {
        everything.add(watch(grpc, WatchRequest.getDefaultInstance()));
        shopOnly.add(watch(grpc, WatchRequest.newBuilder().setNamespace("shop").build()));
      }
      List<RawWatcher> all = new ArrayList<>(everything);
      all.addAll(shopOnly);
      await().atMost(WAIT).until(() -> all.stream().allMatch(w -> w.messages.size() == 1));
      long encodesBefore = serve.server().watchEncodings().encodes();

      // One version changing two Services and removing none.
      RoutingTable changed =
          serve.putAll(
              Map.of(
                  key("shop", "cart"),
                  state("10.1.0.1"),
                  key("bank", "ledger"),
                  state("10.2.0.1")));

      await().atMost(WAIT).until(() -> all.stream().allMatch(w -> w.messages.size() == 2));
      assertThat(serve.server().watchEncodings().encodes() - encodesBefore).isEqualTo(2);
      for (RawWatcher watcher : everything) {
        WatchEvent event = WatchEvent.parseFrom(watcher.messages.get(1));
        assertThat(event.getVersion()).isEqualTo(changed.version());
        assertThat(event.getUpsertedList())
            .extracting(s -> s.getNamespace() + "/" + s.getName())
            .containsExactlyInAnyOrder("shop/cart", "bank/ledger");
      }
      for (RawWatcher watcher : shopOnly) {
        WatchEvent event = WatchEvent.parseFrom(watcher.messages.get(1));
        assertThat(event.getUpsertedList())
            .containsExactly(ProtoMapping.service(changed.get(key("shop", "cart")).orElseThrow()));
      }
    }
  }

  private static ServiceKey key(String namespace, String name) {
    return new ServiceKey(namespace, name);
  }

  private static ServiceState state(String ip) {
    List<Port> ports = List.of(new Port("http", 8080, "TCP"));
    return new ServiceState(
        List.of(new Endpoint(ip, ports, "zone-a", "node-a", "pod-" + ip, true, true, false)),
        ports);
  }

  private static RawWatcher watch(GrpcJavaClient grpc, WatchRequest request) {
    RawWatcher watcher = new RawWatcher();
    ClientCalls.asyncServerStreamingCall(
        grpc.channel()
            .newCall(
                RAW_WATCH,
                CallOptions.DEFAULT.withDeadlineAfter(
                    GrpcJavaClient.WATCH_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)),
        request,
        watcher);
    return watcher;
  }

  /** One stream's messages, as bytes. */
  private static final class RawWatcher implements StreamObserver<byte[]> {
    final List<byte[]> messages = new CopyOnWriteArrayList<>();

    @Override
    public void onNext(byte[] message) {
      messages.add(message);
    }

    @Override
    public void onError(Throwable error) {}

    @Override
    public void onCompleted() {}
  }
}
