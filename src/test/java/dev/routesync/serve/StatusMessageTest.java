package dev.routesync.serve;

import static dev.routesync.serve.RawGrpc.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.NameRule;
import dev.routesync.testing.ServeHarness;
import io.grpc.StatusRuntimeException;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code grpc-message} on the wire is percent-encoded the gRPC way: only bytes outside 0x20-0x7E,
 * and '%' itself, are escaped (as UTF-8 bytes). Form encoding, as Vert.x does, also escapes '/',
 * ':' and friends, which a client that shows the raw value prints as {@code shop%2Fnope}.
 */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class StatusMessageTest {

  private ServeHarness serve;
  private GrpcJavaClient grpc;
  private RawGrpc raw;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 1);
    grpc = new GrpcJavaClient(serve.socket());
    raw = new RawGrpc(vertx, serve.socket());
  }

  @AfterEach
  void stop() throws Exception {
    raw.close();
    grpc.close();
    serve.close();
  }

  private String onTheWire(String namespace, String name) throws Exception {
    byte[] request =
        ResolveRequest.newBuilder().setNamespace(namespace).setName(name).build().toByteArray();
    return raw.call("Resolve", Map.of(), frame(request), Duration.ofSeconds(5)).grpcMessage();
  }

  private String description(String namespace, String name) {
    try {
      grpc.resolve(namespace, name);
    } catch (StatusRuntimeException e) {
      return e.getStatus().getDescription();
    }
    throw new AssertionError("resolve " + namespace + "/" + name + " succeeded");
  }

  @Test
  void onlyWhatTheSpecSaysIsEscaped() throws Exception {
    assertThat(onTheWire("shop", "nope")).isEqualTo("service shop/nope not found");
    assertThat(onTheWire("50%", "x")).isEqualTo("namespace \"50%25\": " + NameRule.RULE);
    assertThat(onTheWire("café", "x")).isEqualTo("namespace \"caf%C3%A9\": " + NameRule.RULE);
    assertThat(onTheWire("shop", "a/b: c")).isEqualTo("Service name \"a/b: c\": " + NameRule.RULE);
  }

  @Test
  void grpcJavaReadsTheMessageAsWritten() {
    assertThat(description("shop", "nope")).isEqualTo("service shop/nope not found");
    assertThat(description("50%", "x")).isEqualTo(NameRule.namespace("50%"));
    assertThat(description("shop", "x: y/z")).isEqualTo(NameRule.serviceName("x: y/z"));
    assertThat(description("café", "x")).isEqualTo(NameRule.namespace("café"));
    assertThatThrownBy(() -> grpc.resolve("shop", "nope"))
        .hasMessage("NOT_FOUND: service shop/nope not found");
  }
}
