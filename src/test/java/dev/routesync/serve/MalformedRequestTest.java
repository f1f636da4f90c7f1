package dev.routesync.serve;

import static dev.routesync.serve.RawGrpc.bytes;
import static dev.routesync.serve.RawGrpc.frame;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.ServeHarness;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.junit5.VertxExtension;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests no gRPC library would send, written frame by frame: each one gets a status, at once, and
 * leaves nothing behind. Before, most got no headers and no reset, ever.
 */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class MalformedRequestTest {

  private static final Duration ANSWER_WITHIN = Duration.ofSeconds(5);
  private static final String INVALID_ARGUMENT = "3";
  private static final String RESOURCE_EXHAUSTED = "8";
  private static final String UNIMPLEMENTED = "12";
  private static final String INTERNAL = "13";

  private ServeHarness serve;
  private RawGrpc raw;

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 2);
    raw = new RawGrpc(vertx, serve.socket());
  }

  @AfterEach
  void stop() throws Exception {
    raw.close();
    serve.close();
  }

  /** A well-formed request of each method: valid on its own, so only the framing is wrong. */
  private static byte[] valid(String method) {
    return switch (method) {
      case "Resolve" ->
          ResolveRequest.newBuilder().setNamespace("shop").setName("cart").build().toByteArray();
      case "List" -> ListRequest.newBuilder().setNamespace("shop").build().toByteArray();
      case "Watch" -> WatchRequest.newBuilder().setNamespace("shop").build().toByteArray();
      default -> throw new IllegalArgumentException(method);
    };
  }

  record Malformed(
      String what, Map<String, String> headers, Buffer body, String code, String says) {
    @Override
    public String toString() {
      return what;
    }
  }

  static Stream<Arguments> malformed() {
    List<Arguments> cases = new ArrayList<>();
    for (String method : List.of("Resolve", "List", "Watch")) {
      byte[] valid = valid(method);
      byte[] shop = bytes(0x0a, 4, 's', 'h', 'o', 'p');
      List<Malformed> all =
          List.of(
              new Malformed(
                  "a malformed varint",
                  Map.of(),
                  frame(bytes(0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1)),
                  INVALID_ARGUMENT,
                  "malformed varint"),
              new Malformed(
                  "invalid UTF-8 in a string field",
                  Map.of(),
                  frame(bytes(0x0a, 2, 0xc3, 0x28)),
                  INVALID_ARGUMENT,
                  "UTF-8"),
              new Malformed(
                  "a length prefix longer than the message sent",
                  Map.of(),
                  frame(0, 100, shop),
                  INVALID_ARGUMENT,
                  "no complete request message"),
              new Malformed(
                  "a truncated length prefix",
                  Map.of(),
                  Buffer.buffer(bytes(0, 0, 0)),
                  INVALID_ARGUMENT,
                  "no complete request message"),
              new Malformed(
                  "no message at all",
                  Map.of(),
                  Buffer.buffer(),
                  INVALID_ARGUMENT,
                  "no complete request message"),
              new Malformed(
                  "two request messages",
                  Map.of(),
                  frame(valid).appendBuffer(frame(valid)),
                  INVALID_ARGUMENT,
                  "exactly one request message, got 2"),
              new Malformed(
                  "the compressed flag without grpc-encoding",
                  Map.of(),
                  frame(1, valid.length, valid),
                  INTERNAL,
                  "compressed"),
              new Malformed(
                  "the compressed flag with grpc-encoding identity",
                  Map.of("grpc-encoding", "identity"),
                  frame(1, valid.length, valid),
                  INTERNAL,
                  "compressed"),
              new Malformed(
                  "a grpc-encoding the agent does not know",
                  Map.of("grpc-encoding", "snappy"),
                  frame(1, valid.length, valid),
                  UNIMPLEMENTED,
                  "grpc-encoding"),
              new Malformed(
                  "gzip that is not gzip",
                  Map.of("grpc-encoding", "gzip"),
                  frame(1, valid.length, valid),
                  INTERNAL,
                  "decompress"),
              new Malformed(
                  "a length prefix over the size limit",
                  Map.of(),
                  frame(0, 1_000_000, shop),
                  RESOURCE_EXHAUSTED,
                  "limit"));
      for (Malformed malformed : all) {
        cases.add(Arguments.of(method, malformed));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("malformed")
  void everyMalformedRequestGetsAStatusAtOnce(String method, Malformed malformed) throws Exception {
    RawGrpc.Answer answer = raw.call(method, malformed.headers(), malformed.body(), ANSWER_WITHIN);

    assertThat(answer.httpStatus()).isEqualTo(200);
    assertThat(answer.grpcStatus()).isEqualTo(malformed.code());
    assertThat(answer.grpcMessage()).isNotNull();
    assertThat(decoded(answer.grpcMessage())).contains(malformed.says());
    assertThat(serve.server().watchStreams()).isZero();
    assertThat(serve.counter("routesync.grpc.requests", "method", method, "status", "OK")).isZero();
  }

  // grpc-message is percent-encoded; '+' is itself there, unlike in forms.
  private static String decoded(String message) {
    return URLDecoder.decode(message.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  @Test
  void malformedCallsDoNotHoldStreamSlots() throws Exception {
    // More than the 1,024 concurrent streams of a connection, all on one connection: each must
    // be answered and its stream closed, or the later ones could never start.
    Buffer badVarint = frame(bytes(0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1));
    int calls = ApiServer.MAX_CONCURRENT_STREAMS + 200;
    for (int sent = 0; sent < calls; sent += 100) {
      List<Future<RawGrpc.Answer>> batch = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        batch.add(raw.start(i % 2 == 0 ? "Watch" : "List", Map.of(), badVarint));
      }
      try {
        Future.all(batch).await(10, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        throw new AssertionError("unanswered after 10 s: " + unanswered(batch, sent), e);
      }
      for (Future<RawGrpc.Answer> answer : batch) {
        assertThat(answer.result().grpcStatus()).isEqualTo(INVALID_ARGUMENT);
      }
    }
    assertThat(serve.server().watchStreams()).isZero();
    // The same connection still serves a good call.
    RawGrpc.Answer good = raw.call("List", Map.of(), frame(valid("List")), ANSWER_WITHIN);
    assertThat(good.grpcStatus()).isEqualTo("0");
  }

  // Which calls of a batch got no answer, so a failure says more than "timeout".
  private static List<String> unanswered(List<Future<RawGrpc.Answer>> batch, int first) {
    List<String> calls = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      if (!batch.get(i).isComplete()) {
        calls.add("#" + (first + i) + (i % 2 == 0 ? " Watch" : " List"));
      }
    }
    return calls;
  }
}
