package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.rpc.Status;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceState;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.ServeHarness;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The xDS meters move with a real ADS stream: grpc-java's own ADS stub over the agent's socket, the
 * server wired to the metrics as the agent wires it.
 */
class XdsMetricsTest {

  private static final String CLUSTER = "cart.shop.svc.cluster.local:8080";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ServeHarness serve;
  private final GrpcJavaClient client;
  private final List<Stream> streams = new ArrayList<>();

  XdsMetricsTest() throws Exception {
    serve = new ServeHarness();
    client = new GrpcJavaClient(serve.socket());
    serve.put("shop", "cart", state("10.0.0.1"));
  }

  @AfterEach
  void close() throws Exception {
    for (Stream stream : streams) {
      stream.requests.onCompleted();
    }
    client.close();
    serve.close();
  }

  /** One ADS stream, its requests and the responses received. */
  private static final class Stream {
    final BlockingQueue<DiscoveryResponse> responses = new LinkedBlockingQueue<>();
    ClientCallStreamObserver<DiscoveryRequest> requests;

    DiscoveryResponse next() throws InterruptedException {
      DiscoveryResponse response = responses.poll(10, TimeUnit.SECONDS);
      assertThat(response).as("a response within 10 s").isNotNull();
      return response;
    }
  }

  private Stream open() {
    Stream stream = new Stream();
    AggregatedDiscoveryServiceGrpc.newStub(client.channel())
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .streamAggregatedResources(
            new ClientResponseObserver<DiscoveryRequest, DiscoveryResponse>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<DiscoveryRequest> requests) {
                stream.requests = requests;
              }

              @Override
              public void onNext(DiscoveryResponse value) {
                stream.responses.add(value);
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    streams.add(stream);
    return stream;
  }

  private static DiscoveryRequest request(String agent, XdsType type, String nonce) {
    return DiscoveryRequest.newBuilder()
        .setNode(Node.newBuilder().setId("node-a").setUserAgentName(agent))
        .setTypeUrl(type.typeUrl())
        .setResponseNonce(nonce)
        .addResourceNames(type == XdsType.ENDPOINT ? CLUSTER : "cart.shop:8080")
        .build();
  }

  private static ServiceState state(String... ips) {
    List<Endpoint> endpoints = new ArrayList<>();
    for (String ip : ips) {
      endpoints.add(
          new Endpoint(
              ip,
              List.of(new Port("grpc", 9090, "TCP")),
              "a",
              "node-a",
              "p-" + ip,
              true,
              true,
              false));
    }
    return new ServiceState(endpoints, List.of(new Port("grpc", 8080, "TCP")));
  }

  private double streamsOf(String client, String api) {
    return serve
        .registry()
        .get("routesync.xds.streams")
        .tags("client", client, "api", api)
        .gauge()
        .value();
  }

  private double subscriptions(String type, String client) {
    return serve
        .registry()
        .get("routesync.xds.subscriptions")
        .tags("type", type, "client", client)
        .gauge()
        .value();
  }

  private long pushes(String type) {
    return serve.registry().get("routesync.xds.push.latency").tags("type", type).timer().count();
  }

  @Test
  void aStreamCountsWhileOpenAndItsSubscriptionsWithIt() throws Exception {
    Stream stream = open();
    stream.requests.onNext(request("grpc-java", XdsType.LISTENER, ""));
    DiscoveryResponse lds = stream.next();
    stream.requests.onNext(request("grpc-java", XdsType.LISTENER, lds.getNonce()));
    stream.requests.onNext(request("grpc-java", XdsType.ENDPOINT, ""));
    stream.next();

    assertThat(streamsOf("grpc-java", "sotw")).isEqualTo(1);
    assertThat(streamsOf("grpc-java", "delta")).isZero();
    assertThat(subscriptions("lds", "grpc-java")).isEqualTo(1);
    assertThat(subscriptions("eds", "grpc-java")).isEqualTo(1);
    assertThat(subscriptions("cds", "grpc-java")).isZero();

    stream.requests.onCompleted(); // the client ends its side: the agent ends the stream, OK
    streams.remove(stream);
    await().atMost(WAIT).until(() -> streamsOf("grpc-java", "sotw") == 0);
    assertThat(subscriptions("lds", "grpc-java")).isZero();
    assertThat(subscriptions("eds", "grpc-java")).isZero();
  }

  @Test
  void aCancelledStreamStopsCounting() throws Exception {
    Stream stream = open();
    stream.requests.onNext(request("envoy/1.31.0", XdsType.ENDPOINT, ""));
    stream.next();
    assertThat(streamsOf("envoy", "sotw")).isEqualTo(1);
    assertThat(subscriptions("eds", "envoy")).isEqualTo(1);

    stream.requests.cancel("the client goes away", null); // RST_STREAM(CANCEL)
    streams.remove(stream);
    await().atMost(WAIT).until(() -> streamsOf("envoy", "sotw") == 0);
    assertThat(subscriptions("eds", "envoy")).isZero();
  }

  @Test
  void responsesCountWithTheResourcesTheyCarried() throws Exception {
    Stream stream = open();
    stream.requests.onNext(
        request("grpc-java", XdsType.ENDPOINT, "").toBuilder()
            .addResourceNames("gone.shop.svc.cluster.local:8080")
            .build());
    DiscoveryResponse eds = stream.next();
    assertThat(eds.getResourcesCount()).isEqualTo(2);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(serve.counter("routesync.xds.responses", "type", "eds")).isEqualTo(1);
              assertThat(serve.counter("routesync.xds.resources.sent", "type", "eds")).isEqualTo(2);
            });
    assertThat(serve.counter("routesync.xds.responses", "type", "lds")).isZero();
  }

  @Test
  void aNackCountsForItsType() throws Exception {
    Stream stream = open();
    stream.requests.onNext(request("grpc-java", XdsType.ENDPOINT, ""));
    DiscoveryResponse eds = stream.next();
    assertThat(serve.counter("routesync.xds.nacks", "type", "eds")).isZero();

    stream.requests.onNext(
        request("grpc-java", XdsType.ENDPOINT, eds.getNonce()).toBuilder()
            .setErrorDetail(Status.newBuilder().setCode(3).setMessage("no weight"))
            .build());
    await().atMost(WAIT).until(() -> serve.counter("routesync.xds.nacks", "type", "eds") == 1);
    // An ACK is not a NACK.
    serve.put("shop", "cart", state("10.0.0.1", "10.0.0.2"));
    DiscoveryResponse pushed = stream.next();
    stream.requests.onNext(request("grpc-java", XdsType.ENDPOINT, pushed.getNonce()));
    stream.requests.onNext(request("grpc-java", XdsType.LISTENER, ""));
    stream.next(); // the requests are handled in order: the ACK is in
    assertThat(serve.counter("routesync.xds.nacks", "type", "eds")).isEqualTo(1);
    assertThat(serve.counter("routesync.xds.nacks", "type", "lds")).isZero();
  }

  @Test
  void aPublishRecordsItsPushLatencyTheFirstAnswerDoesNot() throws Exception {
    Stream stream = open();
    stream.requests.onNext(request("grpc-java", XdsType.ENDPOINT, ""));
    DiscoveryResponse eds = stream.next();
    stream.requests.onNext(request("grpc-java", XdsType.ENDPOINT, eds.getNonce()));
    await().atMost(WAIT).until(() -> serve.counter("routesync.xds.responses", "type", "eds") == 1);
    assertThat(pushes("eds")).as("an answer to a request is not a push").isZero();

    long before = System.nanoTime();
    serve.put("shop", "cart", state("10.0.0.1", "10.0.0.2"));
    DiscoveryResponse pushed = stream.next();
    assertThat(pushed.getResourcesCount()).isEqualTo(1);
    await().atMost(WAIT).until(() -> pushes("eds") == 1);
    long bound = System.nanoTime() - before;

    Timer latency = serve.registry().get("routesync.xds.push.latency").tags("type", "eds").timer();
    assertThat(latency.totalTime(TimeUnit.NANOSECONDS))
        .as("between publish and the response written, within the test's own measure")
        .isPositive()
        .isLessThanOrEqualTo(bound + TimeUnit.MILLISECONDS.toNanos(5));
    assertThat(pushes("lds")).isZero();
  }

  @Test
  void aHostileUserAgentNameAddsNoLabelValue() throws Exception {
    Set<String> before = labelValues();
    String[] hostile = {
      "x\"} 1\nroutesync_xds_streams{client=\"pwned",
      "curl/8.0",
      "a".repeat(10_000),
      "",
      "\u0000\u202e",
    };
    for (String agent : hostile) {
      Stream stream = open();
      stream.requests.onNext(request(agent, XdsType.ENDPOINT, ""));
      stream.next();
    }

    assertThat(labelValues()).isEqualTo(before);
    assertThat(streamsOf("other", "sotw")).isEqualTo(4);
    assertThat(streamsOf("unknown", "sotw")).isEqualTo(1); // the empty name
    assertThat(subscriptions("eds", "other")).isEqualTo(4);
  }

  /** Every xDS meter's tag values, as one sorted set of {@code name:key=value}. */
  private Set<String> labelValues() {
    Set<String> values = new TreeSet<>();
    for (Meter meter : serve.registry().getMeters()) {
      String name = meter.getId().getName();
      if (name.startsWith("routesync.xds")) {
        meter.getId().getTags().forEach(tag -> values.add(name + ":" + tag));
      }
    }
    assertThat(values).isNotEmpty();
    return values;
  }
}
