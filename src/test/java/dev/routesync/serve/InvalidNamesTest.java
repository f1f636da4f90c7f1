package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchRequest;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.NameRule;
import dev.routesync.testing.ServeHarness;
import dev.routesync.testing.UdsHttp;
import dev.routesync.testing.WatchRecorder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One rule for names, one message: every place a client names a namespace or a Service (Resolve,
 * List, Watch's namespace and its Service refs, the HTTP path and {@code ?namespace=}) refuses a
 * bad one with the same text, as INVALID_ARGUMENT or as a 400 with a JSON body.
 */
@Timeout(60)
class InvalidNamesTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private ServeHarness serve;
  private GrpcJavaClient grpc;
  private UdsHttp http;

  @BeforeEach
  void start() throws Exception {
    serve = new ServeHarness();
    serve.put("shop", "cart", 1);
    grpc = new GrpcJavaClient(serve.socket());
    http = new UdsHttp(serve.socket());
  }

  @AfterEach
  void stop() throws Exception {
    grpc.close();
    serve.close();
  }

  private static String invalidArgument(Supplier<?> call) {
    try {
      call.get();
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      return e.getStatus().getDescription();
    }
    throw new AssertionError("the call succeeded");
  }

  private String watchRefused(WatchRequest request) {
    WatchRecorder watcher = new WatchRecorder();
    grpc.watch(request, watcher);
    await().atMost(WAIT).until(() -> watcher.ended() != null);
    assertThat(watcher.events()).isEmpty();
    assertThat(watcher.ended().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    return watcher.ended().getDescription();
  }

  private String badRequest(String uri) throws Exception {
    UdsHttp.Reply reply = http.get(uri);
    assertThat(reply.status()).as(uri).isEqualTo(400);
    assertThat(reply.contentType()).as(uri).isEqualTo("application/json");
    assertThat(reply.json().getInteger("status")).as(uri).isEqualTo(400);
    return reply.json().getString("error");
  }

  private static WatchRequest watching(String namespace, String name) {
    return WatchRequest.newBuilder()
        .addServices(ServiceRef.newBuilder().setNamespace(namespace).setName(name))
        .build();
  }

  @Test
  void aBadNamespaceGetsTheSameMessageEverywhere() throws Exception {
    String expected = NameRule.namespace("Shop");

    assertThat(invalidArgument(() -> grpc.resolve("Shop", "cart"))).isEqualTo(expected);
    assertThat(invalidArgument(() -> grpc.list("Shop"))).isEqualTo(expected);
    assertThat(watchRefused(WatchRequest.newBuilder().setNamespace("Shop").build()))
        .isEqualTo(expected);
    assertThat(watchRefused(watching("Shop", "cart"))).isEqualTo(expected);
    assertThat(badRequest("/v1/services/Shop/cart")).isEqualTo(expected);
    assertThat(badRequest("/v1/services?namespace=Shop")).isEqualTo(expected);
  }

  @Test
  void aBadServiceNameGetsTheSameMessageEverywhere() throws Exception {
    String expected = NameRule.serviceName("cart_v2");

    assertThat(invalidArgument(() -> grpc.resolve("shop", "cart_v2"))).isEqualTo(expected);
    assertThat(watchRefused(watching("shop", "cart_v2"))).isEqualTo(expected);
    assertThat(badRequest("/v1/services/shop/cart_v2")).isEqualTo(expected);
  }

  @Test
  void aMissingNameIsTheEmptyName() throws Exception {
    assertThat(invalidArgument(() -> grpc.resolve("", "cart"))).isEqualTo(NameRule.namespace(""));
    assertThat(invalidArgument(() -> grpc.resolve("shop", ""))).isEqualTo(NameRule.serviceName(""));
    assertThat(watchRefused(watching("shop", ""))).isEqualTo(NameRule.serviceName(""));
  }

  @Test
  void decodedValuesAreQuotedAsTheClientMeantThem() throws Exception {
    String expected = NameRule.namespace("café");

    assertThat(invalidArgument(() -> grpc.resolve("café", "cart"))).isEqualTo(expected);
    assertThat(badRequest("/v1/services/caf%C3%A9/cart")).isEqualTo(expected);
    assertThat(badRequest("/v1/services?namespace=caf%C3%A9")).isEqualTo(expected);
  }

  @Test
  void validNamesStillWork() throws Exception {
    assertThat(grpc.resolve("shop", "cart").getName()).isEqualTo("cart");
    assertThat(grpc.list("shop").getServicesCount()).isEqualTo(1);
    assertThat(grpc.list("").getServicesCount()).isEqualTo(1);
    assertThat(http.get("/v1/services/shop/cart").status()).isEqualTo(200);
    assertThat(http.get("/v1/services?namespace=").status()).isEqualTo(200);
    // Service names may start with a digit (KEP-5311): looked up, not refused.
    assertThat(http.get("/v1/services/shop/1cart").status()).isEqualTo(404);
  }
}
