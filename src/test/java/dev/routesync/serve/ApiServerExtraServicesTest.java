package dev.routesync.serve;

import static dev.routesync.testing.TableStates.states;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors;
import dev.routesync.api.v1.RegistryGrpcService;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.observe.Metrics;
import dev.routesync.table.Freshness;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.TableTrust;
import dev.routesync.table.TableWriter;
import dev.routesync.testing.GrpcJavaClient;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.Service;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ApiServer}'s {@code extraServices} option: other gRPC services on the agent's own stack,
 * beside the registry (what the serving benchmark measures its floor with).
 */
class ApiServerExtraServicesTest {

  private static final ServiceName ECHO = ServiceName.create("routesync.test.Echo");

  /** Answers a service whose name is the requested one, without looking anything up. */
  private static final ServiceMethod<ResolveRequest, ServiceEndpoints> NAME =
      ServiceMethod.server(
          ECHO,
          "Name",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(ResolveRequest.newBuilder()));

  private static final MethodDescriptor<ResolveRequest, ServiceEndpoints> NAME_CLIENT =
      MethodDescriptor.<ResolveRequest, ServiceEndpoints>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("routesync.test.Echo/Name")
          .setRequestMarshaller(ProtoUtils.marshaller(ResolveRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(ServiceEndpoints.getDefaultInstance()))
          .build();

  @TempDir Path dir;

  private final Vertx vertx = Vertx.vertx();
  private ApiServer server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.shutdown(Duration.ZERO).await(10, TimeUnit.SECONDS);
    }
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void servesExtraServicesBesideTheRegistryAndListsThemInReflection() throws Exception {
    Service echo =
        Service.service(ECHO, echoDescriptor())
            .bind(
                NAME,
                call ->
                    call.last()
                        .onSuccess(
                            request ->
                                call.response()
                                    .end(
                                        ServiceEndpoints.newBuilder()
                                            .setName(request.getName())
                                            .build())))
            .build();
    server = server(List.of(echo));
    server.listen().await(10, TimeUnit.SECONDS);

    try (GrpcJavaClient grpc = new GrpcJavaClient(server.socketPath())) {
      ServiceEndpoints echoed =
          ClientCalls.blockingUnaryCall(
              grpc.channel(),
              NAME_CLIENT,
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
              ResolveRequest.newBuilder().setNamespace("shop").setName("anything").build());
      assertThat(echoed.getName()).isEqualTo("anything");
      assertThat(echoed.getEndpointsCount()).isZero();

      // The agent's own services are untouched by the extra one.
      assertThat(grpc.resolve("shop", "cart").getName()).isEqualTo("cart");
      assertThat(listServices(grpc))
          .contains("routesync.test.Echo", "routesync.v1.Registry", "grpc.health.v1.Health");
    }
  }

  @Test
  void anExtraServiceCannotReplaceTheRegistry() {
    Service impostor = Service.service(RegistryGrpcService.SERVICE_NAME, null).build();

    assertThatThrownBy(() -> server(List.of(impostor)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "extra gRPC service routesync.v1.Registry clashes with a service the agent already"
                + " serves");
  }

  private ApiServer server(List<Service> extraServices) {
    TableWriter table = new TableWriter(Clock.systemUTC(), 16);
    table.publish(states(Map.of(new ServiceKey("shop", "cart"), List.of())), List.of());
    return new ApiServer(
        vertx,
        table,
        Freshness.unwatched(TableTrust.synced()),
        new Metrics(new SimpleMeterRegistry()).serve(),
        new Readiness(),
        ApiServerOptions.onSocket(dir.resolve("api.sock")).withExtraServices(extraServices));
  }

  private static List<String> listServices(GrpcJavaClient grpc) throws Exception {
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
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    ServerReflectionResponse response = answer.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    return response.getListServicesResponse().getServiceList().stream()
        .map(service -> service.getName())
        .toList();
  }

  /** {@code service Echo { rpc Name(ResolveRequest) returns (ServiceEndpoints); }} */
  private static Descriptors.ServiceDescriptor echoDescriptor() throws Exception {
    Descriptors.FileDescriptor registry = ResolveRequest.getDescriptor().getFile();
    FileDescriptorProto file =
        FileDescriptorProto.newBuilder()
            .setName("routesync/test/echo.proto")
            .setPackage("routesync.test")
            .setSyntax("proto3")
            .addDependency(registry.getName())
            .addService(
                ServiceDescriptorProto.newBuilder()
                    .setName("Echo")
                    .addMethod(
                        MethodDescriptorProto.newBuilder()
                            .setName("Name")
                            .setInputType(".routesync.v1.ResolveRequest")
                            .setOutputType(".routesync.v1.ServiceEndpoints")))
            .build();
    return Descriptors.FileDescriptor.buildFrom(file, new Descriptors.FileDescriptor[] {registry})
        .findServiceByName("Echo");
  }
}
