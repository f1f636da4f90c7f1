package dev.routesync.serve;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors;
import io.vertx.core.Handler;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.reflection.ReflectionService;
import io.vertx.grpc.reflection.v1.ServerReflectionProto;
import io.vertx.grpc.reflection.v1.ServerReflectionRequest;
import io.vertx.grpc.reflection.v1.ServerReflectionResponse;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * gRPC server reflection under its older name, {@code grpc.reflection.v1alpha.ServerReflection},
 * which older {@code grpcurl} builds (and other grpc-go based tools) ask for. Vert.x 5.0.7 serves
 * only v1, and its handler is not public. The two protocols are the same messages with the same
 * field numbers under another package, so Vert.x's own v1 handler serves v1alpha as it is: it is
 * bound here under the v1alpha method name, through a view of the server that redirects its one
 * {@code callHandler} registration (everything else, such as the list of services it describes,
 * goes to the real server).
 */
final class ReflectionV1alpha implements Service {

  private static final String V1ALPHA = "grpc.reflection.v1alpha";

  private static final ServiceName NAME = ServiceName.create(V1ALPHA + ".ServerReflection");

  private static final ServiceMethod<ServerReflectionRequest, ServerReflectionResponse> METHOD =
      ServiceMethod.server(
          NAME,
          "ServerReflectionInfo",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(ServerReflectionRequest.newBuilder()));

  /** v1's descriptor under the v1alpha package, so reflection can describe this service too. */
  private static final Descriptors.ServiceDescriptor DESCRIPTOR = v1alphaDescriptor();

  private static Descriptors.ServiceDescriptor v1alphaDescriptor() {
    FileDescriptorProto.Builder file =
        ServerReflectionProto.getDescriptor().toProto().toBuilder()
            .setName("grpc/reflection/v1alpha/reflection.proto")
            .setPackage(V1ALPHA);
    for (DescriptorProto.Builder message : file.getMessageTypeBuilderList()) {
      renameTypes(message);
    }
    for (ServiceDescriptorProto.Builder service : file.getServiceBuilderList()) {
      for (MethodDescriptorProto.Builder method : service.getMethodBuilderList()) {
        method.setInputType(renamed(method.getInputType()));
        method.setOutputType(renamed(method.getOutputType()));
      }
    }
    try {
      return Descriptors.FileDescriptor.buildFrom(file.build(), new Descriptors.FileDescriptor[0])
          .findServiceByName("ServerReflection");
    } catch (Descriptors.DescriptorValidationException e) {
      throw new IllegalStateException("reflection v1alpha descriptor", e);
    }
  }

  private static void renameTypes(DescriptorProto.Builder message) {
    for (FieldDescriptorProto.Builder field : message.getFieldBuilderList()) {
      if (field.hasTypeName()) {
        field.setTypeName(renamed(field.getTypeName()));
      }
    }
    for (DescriptorProto.Builder nested : message.getNestedTypeBuilderList()) {
      renameTypes(nested);
    }
  }

  private static String renamed(String typeName) {
    return typeName.startsWith(".grpc.reflection.v1.")
        ? "." + V1ALPHA + typeName.substring(".grpc.reflection.v1".length())
        : typeName;
  }

  @Override
  public ServiceName name() {
    return NAME;
  }

  @Override
  public Descriptors.ServiceDescriptor descriptor() {
    return DESCRIPTOR;
  }

  @Override
  public void bind(GrpcServer server) {
    ReflectionService.v1().bind(registeringAsV1alpha(server));
  }

  @SuppressWarnings("unchecked")
  private static GrpcServer registeringAsV1alpha(GrpcServer server) {
    return (GrpcServer)
        Proxy.newProxyInstance(
            GrpcServer.class.getClassLoader(),
            new Class<?>[] {GrpcServer.class},
            (proxy, method, args) -> {
              if (method.getName().equals("callHandler")
                  && args != null
                  && args.length == 2
                  && args[0] instanceof ServiceMethod<?, ?>) {
                server.callHandler(
                    METHOD,
                    (Handler<GrpcServerRequest<ServerReflectionRequest, ServerReflectionResponse>>)
                        args[1]);
                return proxy;
              }
              try {
                return method.invoke(server, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
