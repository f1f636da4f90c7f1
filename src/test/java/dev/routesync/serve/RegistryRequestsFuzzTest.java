package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.routesync.api.v1.ListRequest;
import dev.routesync.api.v1.RegistryGrpcService;
import dev.routesync.api.v1.ResolveRequest;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.table.InvalidNameException;
import dev.routesync.table.ServiceKey;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.CodecException;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.StatusException;
import java.util.Arrays;
import java.util.List;

/**
 * gRPC request decoding, from the bytes of one request message: Vert.x's own protobuf decoder for
 * the method (the one the server runs), then on failure {@link SingleRequest#undecodable}'s status,
 * on success {@link RegistryRequests}' checks. The only failures are INVALID_ARGUMENT: a message
 * that does not parse ({@link InvalidProtocolBufferException}, nothing else) or names that break
 * Kubernetes' rule; every status message is bounded and fits a {@code grpc-message} trailer.
 *
 * <p>The input's first byte picks the method (and the call's {@code grpc-encoding}); the rest is
 * the message. A normal build replays {@code RegistryRequestsFuzzTestInputs/}; {@code
 * scripts/fuzz.sh} fuzzes.
 */
class RegistryRequestsFuzzTest {

  private static final List<ServiceMethod<?, ?>> METHODS =
      List.of(RegistryGrpcService.Resolve, RegistryGrpcService.List, RegistryGrpcService.Watch);

  // What a call's encoding is when the message reaches the decoder: none named (RequestEncoding's
  // placeholder), identity, or gzip (the message then arrived decompressed).
  private static final List<String> ENCODINGS = List.of(RequestEncoding.NONE, "identity", "gzip");

  /**
   * Longer than any message the checks write: a client's value is shown cut at 64 characters, each
   * at most 6 once escaped (a control character becomes a 6-character escape), inside some 150
   * characters of fixed text. (The fuzzer's first finding here was a bound of 400 that was too
   * tight, not a bug: 425 characters.)
   */
  private static final int MAX_STATUS_MESSAGE = 64 * 6 + 200;

  @FuzzTest
  void requestMessage(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int selector = input[0] & 0xff;
    ServiceMethod<?, ?> method = METHODS.get(selector % METHODS.size());
    String encoding = ENCODINGS.get((selector / METHODS.size()) % ENCODINGS.size());
    byte[] payload = Arrays.copyOfRange(input, 1, input.length);

    Object request;
    try {
      request = method.decoder().decode(GrpcMessage.message(encoding, Buffer.buffer(payload)));
    } catch (CodecException e) {
      assertThat(e.getCause())
          .as("a decode failure is protobuf's refusal")
          .isInstanceOf(InvalidProtocolBufferException.class);
      StatusException status = SingleRequest.undecodable(method.methodName(), encoding, e);
      assertThat(status.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertSendable(status.message());
      return;
    }
    try {
      check(request);
    } catch (InvalidNameException e) {
      assertSendable(e.getMessage());
    }
  }

  private static void check(Object request) {
    if (request instanceof ResolveRequest resolve) {
      ServiceKey key = RegistryRequests.resolveKey(resolve);
      assertThat(ServiceKey.parse(key.toString())).isEqualTo(key);
    } else if (request instanceof ListRequest list) {
      String namespace = RegistryRequests.namespaceFilter(list.getNamespace());
      assertThat(namespace).isEqualTo(list.getNamespace());
    } else {
      WatchRequest watch = (WatchRequest) request;
      WatchFilter filter = RegistryRequests.watchFilter(watch);
      assertThat(filter.namespace()).isEqualTo(watch.getNamespace());
      assertThat(filter.services().size()).isLessThanOrEqualTo(watch.getServicesCount());
      for (ServiceKey key : filter.services()) {
        assertThat(filter.matches(key)).isTrue();
      }
    }
  }

  // A status message goes, percent-encoded, into a trailer: bounded, and printable ASCII once
  // encoded (the client's bytes never reach it raw).
  private static void assertSendable(String message) {
    assertThat(message).isNotBlank();
    assertThat(message.length()).isLessThanOrEqualTo(MAX_STATUS_MESSAGE);
    String encoded = GrpcStatusMessage.percentEncoded(message);
    assertThat(encoded.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)).as(encoded).isTrue();
  }
}
