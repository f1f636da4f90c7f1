package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Timestamp;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.StatusResponse;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.table.TableTrust;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.UdsHttp;
import dev.routesync.testing.WatchRecorder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Staleness, said honestly, over gRPC (grpc-java, an independent client) and HTTP: {@code stale}
 * and {@code synced_at} in List, Watch and the single-service answer, and the Status RPC, with a
 * freshness the test steers as the agent's watches would.
 */
@Timeout(60)
class StalenessTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration RELIST_AFTER = Duration.ofSeconds(10);
  private static final Instant HEARD = Instant.parse("2026-12-01T14:02:03.250Z");

  private final TableTrust trust = TableTrust.untrusted();
  private final AtomicLong downNanos = new AtomicLong();
  private ServeHarness serve;
  private GrpcJavaClient grpc;
  private UdsHttp http;

  private void start() throws Exception {
    serve = ServeHarness.watched(trust, downNanos::get, RELIST_AFTER);
    grpc = new GrpcJavaClient(serve.socket());
    http = new UdsHttp(serve.socket());
  }

  @AfterEach
  void stop() throws Exception {
    if (grpc != null) {
      grpc.close();
    }
    if (http != null) {
      http.close();
    }
    if (serve != null) {
      serve.close();
    }
  }

  private static Timestamp timestamp(Instant at) {
    return Timestamp.newBuilder().setSeconds(at.getEpochSecond()).setNanos(at.getNano()).build();
  }

  @Test
  void statusAnswersBeforeTheFirstSyncWhileListIsUnavailable() throws Exception {
    start();
    serve.put("shop", "cart", 2); // a partial first list: held, not served
    assertThatThrownBy(() -> grpc.list(""))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

    StatusResponse status = grpc.status();
    assertThat(status.getTrust()).isEqualTo(StatusResponse.Trust.NOT_SYNCED);
    assertThat(status.getStale()).isTrue();
    assertThat(status.getConnected()).isFalse();
    assertThat(status.hasSyncedAt()).isFalse();
    assertThat(status.getVersion()).isEqualTo(serve.table().version());
    assertThat(status.getServiceCount()).isEqualTo(1);
    assertThat(status.getEndpointCount()).isEqualTo(2);
    assertThat(status.getBuiltAt()).isEqualTo(timestamp(serve.table().builtAt()));

    UdsHttp.Reply reply = http.get("/v1/status");
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.json().getString("trust")).isEqualTo("NOT_SYNCED");
    assertThat(reply.json().getBoolean("stale")).isTrue();
    assertThat(reply.json().getString("disconnected_for")).isEqualTo("0s");
    assertThat(reply.json().containsKey("synced_at")).isFalse();
    assertThat(http.get("/v1/services").status()).isEqualTo(503);
  }

  @Test
  void aRestoredTableIsServedStaleUntilAListConfirmsIt() throws Exception {
    start();
    serve.put("shop", "cart", 2);
    trust.raise(TableTrust.Level.RESTORED);

    ListResponse restored = grpc.list("");
    assertThat(restored.getServicesList()).hasSize(1);
    assertThat(restored.getStale()).isTrue();
    assertThat(restored.hasSyncedAt()).as("never heard from the API server").isFalse();
    StatusResponse status = grpc.status();
    assertThat(status.getTrust()).isEqualTo(StatusResponse.Trust.RESTORED);
    assertThat(status.getStale()).isTrue();
    assertThat(status.getConnected()).isFalse();

    serve.freshness().heard(HEARD);
    trust.raise(TableTrust.Level.SYNCED);
    ListResponse synced = grpc.list("");
    assertThat(synced.getStale()).isFalse();
    assertThat(synced.getSyncedAt()).isEqualTo(timestamp(HEARD));
    status = grpc.status();
    assertThat(status.getTrust()).isEqualTo(StatusResponse.Trust.SYNCED);
    assertThat(status.getConnected()).isTrue();
    assertThat(status.getSyncedAt()).isEqualTo(timestamp(HEARD));
  }

  @Test
  void httpAnswersCarryStaleAndSyncedAtInRfc3339() throws Exception {
    start();
    serve.put("shop", "cart", 2);
    serve.freshness().heard(HEARD);
    trust.raise(TableTrust.Level.SYNCED);
    downNanos.set(RELIST_AFTER.plusSeconds(5).toNanos());

    JsonObject list = http.get("/v1/services").json();
    assertThat(list.getBoolean("stale")).isTrue();
    assertThat(list.getString("synced_at")).isEqualTo("2026-12-01T14:02:03.250Z");

    // One service: its own fields as before, the table's two beside them (no wrapper).
    UdsHttp.Reply one = http.get("/v1/services/shop/cart");
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.json().getString("name")).isEqualTo("cart");
    assertThat(one.json().getJsonArray("endpoints")).hasSize(2);
    assertThat(one.json().getBoolean("stale")).isTrue();
    assertThat(one.json().getString("synced_at")).isEqualTo("2026-12-01T14:02:03.250Z");

    JsonObject status = http.get("/v1/status").json();
    assertThat(status.getMap())
        .containsEntry("trust", "SYNCED")
        .containsEntry("stale", true)
        .containsEntry("connected", false)
        .containsEntry("disconnected_for", "15s")
        .containsEntry("synced_at", "2026-12-01T14:02:03.250Z")
        .containsEntry("service_count", 1)
        .containsEntry("endpoint_count", 2)
        .containsEntry("version", String.valueOf(serve.table().version()));
    assertThat(Instant.parse(status.getString("built_at"))).isEqualTo(serve.table().builtAt());

    downNanos.set(0);
    assertThat(http.get("/v1/services").json().getBoolean("stale")).isFalse();
    assertThat(http.get("/v1/services/shop/cart").json().getBoolean("stale")).isFalse();
  }

  @Test
  void watchEventsCarryStalenessAndAFlipWithoutANewVersionIsSentAlone() throws Exception {
    start();
    serve.put("shop", "cart", 2);
    serve.freshness().heard(HEARD);
    trust.raise(TableTrust.Level.SYNCED);
    WatchRecorder watcher = new WatchRecorder();
    grpc.watch(WatchRequest.getDefaultInstance(), watcher);
    await().atMost(WAIT).until(() -> watcher.events().size() == 1);
    WatchEvent snapshot = watcher.events().get(0);
    assertThat(snapshot.getReset()).isTrue();
    assertThat(snapshot.getStale()).isFalse();
    assertThat(snapshot.getSyncedAt()).isEqualTo(timestamp(HEARD));
    long version = snapshot.getVersion();

    // The API server has been away longer than relist-after: no version, but the stream is told.
    downNanos.set(RELIST_AFTER.plusSeconds(1).toNanos());
    await().atMost(WAIT).until(() -> watcher.events().size() == 2);
    WatchEvent turnedStale = watcher.events().get(1);
    assertThat(turnedStale.getVersion()).isEqualTo(version);
    assertThat(turnedStale.getReset()).isFalse();
    assertThat(turnedStale.getUpsertedList()).isEmpty();
    assertThat(turnedStale.getRemovedList()).isEmpty();
    assertThat(turnedStale.getStale()).isTrue();

    // A change while stale says so too; the subscriber's table is unchanged otherwise.
    serve.put("shop", "cart", 3);
    await().atMost(WAIT).until(() -> watcher.events().size() == 3);
    assertThat(watcher.events().get(2).getStale()).isTrue();
    assertThat(watcher.events().get(2).getUpsertedList()).hasSize(1);
    assertThat(watcher.state().get("shop/cart").getEndpointsList()).hasSize(3);

    downNanos.set(0);
    await().atMost(WAIT).until(() -> watcher.events().size() == 4);
    WatchEvent fresh = watcher.events().get(3);
    assertThat(fresh.getStale()).isFalse();
    assertThat(fresh.getVersion()).isEqualTo(serve.table().version());
    assertThat(fresh.getUpsertedList()).isEmpty();
    // A flip is said once: the next event is the next version's, not another empty one.
    serve.put("shop", "cart", 1);
    await().atMost(WAIT).until(() -> watcher.events().size() >= 5);
    assertThat(watcher.events().get(4).getUpsertedList()).hasSize(1);
    assertThat(watcher.events().get(4).getStale()).isFalse();
  }

  @Test
  void reflectionDescribesStatusWithTheWellKnownTypesItImports() throws Exception {
    start();
    Map<String, FileDescriptorProto> files = new HashMap<>();
    for (FileDescriptorProto file :
        reflect(request().setFileContainingSymbol("routesync.v1.Registry"))) {
      files.put(file.getName(), file);
    }
    // grpcurl asks for each dependency it has not been sent, by file name.
    for (String dependency :
        List.copyOf(files.get("routesync/v1/registry.proto").getDependencyList())) {
      if (!files.containsKey(dependency)) {
        for (FileDescriptorProto file : reflect(request().setFileByFilename(dependency))) {
          files.put(file.getName(), file);
        }
      }
    }
    Descriptors.FileDescriptor registry = build("routesync/v1/registry.proto", files);
    Descriptors.ServiceDescriptor service = registry.findServiceByName("Registry");
    assertThat(service.findMethodByName("Status").getOutputType().getFullName())
        .isEqualTo("routesync.v1.StatusResponse");
    assertThat(
            registry
                .findMessageTypeByName("ListResponse")
                .findFieldByName("synced_at")
                .getMessageType()
                .getFullName())
        .isEqualTo("google.protobuf.Timestamp");
  }

  private static ServerReflectionRequest.Builder request() {
    return ServerReflectionRequest.newBuilder();
  }

  private static Descriptors.FileDescriptor build(
      String name, Map<String, FileDescriptorProto> files) throws Exception {
    FileDescriptorProto file = files.get(name);
    assertThat(file).as(name).isNotNull();
    Descriptors.FileDescriptor[] dependencies =
        new Descriptors.FileDescriptor[file.getDependencyCount()];
    for (int i = 0; i < dependencies.length; i++) {
      dependencies[i] = build(file.getDependency(i), files);
    }
    return Descriptors.FileDescriptor.buildFrom(file, dependencies);
  }

  private List<FileDescriptorProto> reflect(ServerReflectionRequest.Builder request)
      throws Exception {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(grpc.channel())
            .withDeadlineAfter(10, TimeUnit.SECONDS)
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
    requests.onNext(request.build());
    try {
      ServerReflectionResponse response = answer.get(10, TimeUnit.SECONDS);
      assertThat(response.hasErrorResponse())
          .as(response.getErrorResponse().getErrorMessage())
          .isFalse();
      List<FileDescriptorProto> files = new java.util.ArrayList<>();
      for (var bytes : response.getFileDescriptorResponse().getFileDescriptorProtoList()) {
        files.add(FileDescriptorProto.parseFrom(bytes));
      }
      return files;
    } finally {
      requests.onCompleted();
    }
  }
}
