package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.WatchRecorder;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Registry service through grpc-java, an independent client, over the Unix socket. */
class GrpcRegistryTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private ServeHarness serve;
  private GrpcJavaClient grpc;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    grpc = new GrpcJavaClient(serve.socket());
    serve.put("shop", "cart", 2);
    serve.put("shop", "checkout", 3);
    serve.put("billing", "ledger", 1);
  }

  @AfterEach
  void stop() throws Exception {
    grpc.close();
    serve.close();
  }

  @Test
  void resolvesOneServiceWithEveryField() {
    ServiceEndpoints cart = grpc.resolve("shop", "cart");
    assertThat(cart.getNamespace()).isEqualTo("shop");
    assertThat(cart.getName()).isEqualTo("cart");
    assertThat(cart.getVersion()).isEqualTo(1);
    assertThat(cart.getEndpointsList()).hasSize(2);
    var first = cart.getEndpoints(0);
    assertThat(first.getIp()).isEqualTo("10.0.0.1");
    assertThat(first.getPorts(0).getName()).isEqualTo("http");
    assertThat(first.getPorts(0).getPort()).isEqualTo(8080);
    assertThat(first.getPorts(0).getProtocol()).isEqualTo("TCP");
    assertThat(first.getZone()).isEqualTo("zone-a");
    assertThat(first.getNode()).isEqualTo("node-a");
    assertThat(first.getPod()).isEqualTo("cart-0");
    assertThat(first.getReady()).isTrue();
    assertThat(first.getServing()).isTrue();
    assertThat(first.getTerminating()).isFalse();
  }

  @Test
  void listsAllOrOneNamespaceAtTheTableVersion() {
    ListResponse all = grpc.list("");
    assertThat(all.getVersion()).isEqualTo(serve.table().version());
    assertThat(all.getServicesList())
        .extracting(s -> s.getNamespace() + "/" + s.getName())
        .containsExactly("billing/ledger", "shop/cart", "shop/checkout");
    assertThat(grpc.list("shop").getServicesCount()).isEqualTo(2);
    assertThat(grpc.list("nowhere").getServicesCount()).isZero();
  }

  @Test
  void mapsBadRequestsToStatuses() {
    assertStatus(() -> grpc.resolve("shop", "nope"), Status.Code.NOT_FOUND, "shop/nope");
    assertStatus(() -> grpc.resolve("", "cart"), Status.Code.INVALID_ARGUMENT, "namespace \"\"");
    assertStatus(() -> grpc.resolve("shop", "Bad_Name"), Status.Code.INVALID_ARGUMENT, "DNS-1123");
    assertStatus(() -> grpc.list("UPPER"), Status.Code.INVALID_ARGUMENT, "DNS-1123");
    assertStatus(
        () -> grpc.resolve("shop", "x".repeat(100_000)), Status.Code.RESOURCE_EXHAUSTED, "");
    MethodDescriptor<ServiceRef, ServiceRef> unknown =
        MethodDescriptor.<ServiceRef, ServiceRef>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("routesync.v1.Registry/Nope")
            .setRequestMarshaller(ProtoUtils.marshaller(ServiceRef.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(ServiceRef.getDefaultInstance()))
            .build();
    assertStatus(
        () ->
            ClientCalls.blockingUnaryCall(
                grpc.channel(), unknown, grpc.options(), ServiceRef.getDefaultInstance()),
        Status.Code.UNIMPLEMENTED,
        "");
    // The connection survived every failure.
    assertThat(grpc.resolve("shop", "cart").getName()).isEqualTo("cart");
  }

  @Test
  void aWatchNamingMoreServicesThanTheLimitIsResourceExhausted() {
    WatchRequest.Builder tooMany = WatchRequest.newBuilder();
    for (int i = 0; i <= RegistryGrpc.MAX_WATCH_SERVICES; i++) {
      tooMany.addServices(ServiceRef.newBuilder().setNamespace("shop").setName("s" + i));
    }
    WatchRecorder watcher = new WatchRecorder();
    grpc.watch(tooMany.build(), watcher);
    await().atMost(WAIT).until(() -> watcher.ended() != null);
    assertThat(watcher.ended().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(watcher.ended().getDescription()).contains("limit of 1000");
    assertThat(watcher.events()).isEmpty();
  }

  @Test
  void watchSendsASnapshotThenOneDeltaPerVersion() {
    WatchRecorder watcher = new WatchRecorder();
    grpc.watch(WatchRequest.getDefaultInstance(), watcher);
    await().atMost(WAIT).until(() -> watcher.events().size() == 1);
    WatchEvent snapshot = watcher.events().get(0);
    assertThat(snapshot.getReset()).isTrue();
    assertThat(snapshot.getVersion()).isEqualTo(serve.table().version());
    assertThat(snapshot.getUpsertedCount()).isEqualTo(3);

    long scaled = serve.put("shop", "cart", 5).version();
    await().atMost(WAIT).until(() -> watcher.events().size() == 2);
    WatchEvent delta = watcher.events().get(1);
    assertThat(delta.getReset()).isFalse();
    assertThat(delta.getVersion()).isEqualTo(scaled);
    assertThat(delta.getUpsertedList())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getName()).isEqualTo("cart");
              assertThat(s.getVersion()).isEqualTo(scaled);
              assertThat(s.getEndpointsCount()).isEqualTo(5);
            });

    long removed = serve.remove("billing", "ledger").version();
    await().atMost(WAIT).until(() -> watcher.events().size() == 3);
    assertThat(watcher.events().get(2).getVersion()).isEqualTo(removed);
    assertThat(watcher.events().get(2).getRemovedList())
        .containsExactly(ServiceRef.newBuilder().setNamespace("billing").setName("ledger").build());
    assertThat(watcher.state()).containsOnlyKeys("shop/cart", "shop/checkout");
    // Unchanged services keep their own version, not the table's.
    assertThat(watcher.state().get("shop/checkout").getVersion()).isEqualTo(2);
  }

  @Test
  void watchFollowsOnlyItsNamespaceOrItsServices() {
    WatchRecorder billing = new WatchRecorder();
    grpc.watch(WatchRequest.newBuilder().setNamespace("billing").build(), billing);
    WatchRecorder cartOnly = new WatchRecorder();
    grpc.watch(
        WatchRequest.newBuilder()
            .addServices(ServiceRef.newBuilder().setNamespace("shop").setName("cart"))
            .build(),
        cartOnly);
    await().atMost(WAIT).until(() -> billing.events().size() == 1 && cartOnly.events().size() == 1);
    assertThat(billing.state()).containsOnlyKeys("billing/ledger");
    assertThat(cartOnly.state()).containsOnlyKeys("shop/cart");

    serve.put("shop", "checkout", 9); // touches neither subscription
    long cartVersion = serve.put("shop", "cart", 4).version();
    await().atMost(WAIT).until(() -> cartOnly.version() == cartVersion);
    assertThat(cartOnly.events()).hasSize(2);
    assertThat(billing.events()).hasSize(1);
  }

  @Test
  void resumingFromARecentVersionSendsOnlyWhatWasMissed() {
    long seen = serve.table().version();
    serve.put("shop", "cart", 7);
    serve.remove("billing", "ledger");
    WatchRecorder resumed = new WatchRecorder();
    grpc.watch(WatchRequest.newBuilder().setResumeFromVersion(seen).build(), resumed);
    await().atMost(WAIT).until(() -> resumed.events().size() == 1);
    WatchEvent first = resumed.events().get(0);
    assertThat(first.getReset()).isFalse();
    assertThat(first.getVersion()).isEqualTo(serve.table().version());
    assertThat(first.getUpsertedList())
        .extracting(ServiceEndpoints::getName)
        .containsExactly("cart");
    assertThat(first.getRemovedList()).extracting(ServiceRef::getName).containsExactly("ledger");
  }

  @Test
  void resumingFromAVersionTooOldOrUnknownSendsAFullSnapshot() {
    for (int i = 0; i < 1100; i++) { // more versions than the delta log keeps
      serve.put("shop", "cart", i % 5 + 1);
    }
    for (long from : new long[] {1, serve.table().version() + 100}) {
      WatchRecorder resumed = new WatchRecorder();
      grpc.watch(WatchRequest.newBuilder().setResumeFromVersion(from).build(), resumed);
      await().atMost(WAIT).until(() -> resumed.events().size() == 1);
      assertThat(resumed.events().get(0).getReset()).as("resume from %d", from).isTrue();
      assertThat(resumed.state()).hasSize(3);
    }
  }

  @Test
  void healthFollowsReadinessOnTheRegistryService() {
    HealthCheckRequest registry =
        HealthCheckRequest.newBuilder().setService(ApiServer.HEALTH_SERVICE).build();
    var health = HealthGrpc.newBlockingStub(grpc.channel()).withDeadlineAfter(10, TimeUnit.SECONDS);
    assertThat(health.check(registry).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    serve.readiness().draining();
    assertThat(health.check(registry).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
  }

  @Test
  void reflectionListsTheRegistryService() throws Exception {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(grpc.channel())
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse response) {
                    answer.complete(response);
                  }

                  @Override
                  public void onError(Throwable error) {
                    answer.completeExceptionally(error);
                  }

                  @Override
                  public void onCompleted() {}
                });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    ServerReflectionResponse response = answer.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    assertThat(response.getListServicesResponse().getServiceList())
        .extracting(s -> s.getName())
        .contains("routesync.v1.Registry", "grpc.health.v1.Health");
  }

  /** One request on a v1alpha reflection stream (the older protocol grpcurl builds still ask). */
  private io.grpc.reflection.v1alpha.ServerReflectionResponse reflectV1alpha(
      io.grpc.reflection.v1alpha.ServerReflectionRequest request) throws Exception {
    CompletableFuture<io.grpc.reflection.v1alpha.ServerReflectionResponse> answer =
        new CompletableFuture<>();
    StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> requests =
        io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(grpc.channel())
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(io.grpc.reflection.v1alpha.ServerReflectionResponse response) {
                    answer.complete(response);
                  }

                  @Override
                  public void onError(Throwable error) {
                    answer.completeExceptionally(error);
                  }

                  @Override
                  public void onCompleted() {}
                });
    requests.onNext(request);
    try {
      return answer.get(10, TimeUnit.SECONDS);
    } finally {
      requests.onCompleted();
    }
  }

  @Test
  void reflectionV1alphaServesOlderClientsToo() throws Exception {
    var listed =
        reflectV1alpha(
            io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder()
                .setListServices("")
                .build());
    assertThat(listed.getListServicesResponse().getServiceList())
        .extracting(s -> s.getName())
        .contains(
            "routesync.v1.Registry",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection");

    var described =
        reflectV1alpha(
            io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder()
                .setFileContainingSymbol("routesync.v1.Registry")
                .build());
    var file =
        com.google.protobuf.DescriptorProtos.FileDescriptorProto.parseFrom(
            described.getFileDescriptorResponse().getFileDescriptorProto(0));
    assertThat(file.getPackage()).isEqualTo("routesync.v1");
    assertThat(file.getServiceList()).extracting(s -> s.getName()).contains("Registry");

    var itself =
        reflectV1alpha(
            io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder()
                .setFileContainingSymbol("grpc.reflection.v1alpha.ServerReflection")
                .build());
    assertThat(
            com.google.protobuf.DescriptorProtos.FileDescriptorProto.parseFrom(
                    itself.getFileDescriptorResponse().getFileDescriptorProto(0))
                .getPackage())
        .isEqualTo("grpc.reflection.v1alpha");
  }

  @Test
  void countsCallsByMethodAndStatusAndOpenWatchers() {
    grpc.resolve("shop", "cart");
    try {
      grpc.resolve("shop", "nope");
    } catch (StatusRuntimeException expected) {
      // counted below
    }
    WatchRecorder watcher = new WatchRecorder();
    grpc.watch(WatchRequest.getDefaultInstance(), watcher);
    await().atMost(WAIT).until(() -> watcher.events().size() == 1);
    assertThat(serve.counter("routesync.grpc.requests", "method", "Resolve", "status", "OK"))
        .isEqualTo(1);
    assertThat(serve.counter("routesync.grpc.requests", "method", "Resolve", "status", "NOT_FOUND"))
        .isEqualTo(1);
    assertThat(serve.registry().get("routesync.watch.subscribers").gauge().value()).isEqualTo(1);
    assertThat(serve.counter("routesync.watch.messages")).isEqualTo(1);
    assertThat(serve.counter("routesync.watch.services.sent")).isEqualTo(3);
  }

  @Test
  void aCancelledWatchIsForgottenAndCounted() {
    var call = grpc.channel().newCall(GrpcJavaClient.WATCH, grpc.options());
    WatchRecorder watcher = new WatchRecorder();
    io.grpc.stub.ClientCalls.asyncServerStreamingCall(
        call, WatchRequest.getDefaultInstance(), watcher);
    await().atMost(WAIT).until(() -> watcher.events().size() == 1);
    assertThat(serve.server().watchStreams()).isEqualTo(1);
    call.cancel("sidecar restarting", null);
    await().atMost(WAIT).until(() -> serve.server().watchStreams() == 0);
    await()
        .atMost(WAIT)
        .until(
            () ->
                serve.counter("routesync.grpc.requests", "method", "Watch", "status", "CANCELLED")
                    == 1);
    assertThat(serve.registry().get("routesync.watch.subscribers").gauge().value()).isZero();
  }

  private static void assertStatus(Runnable call, Status.Code code, String message) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(String.valueOf(e.getStatus().getDescription())).contains(message);
            });
  }
}
