package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.Status;
import dev.routesync.table.Endpoint;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.testing.GrpcJavaClient;
import dev.routesync.testing.RawBytes;
import dev.routesync.testing.ResponseRecorder;
import dev.routesync.testing.ServeHarness;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DeltaDiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Delta ADS as Envoy speaks it, against grpc-java's own ADS stub over the agent's socket. Envoy
 * cannot be installed here, so the client is shaped like it: {@code node.cluster} and {@code
 * node.id} set, user agent {@code envoy}, a delta CDS wildcard ("all clusters"), then EDS for each
 * cluster it gets, ACKing every response.
 *
 * <p>Absence is proved with a barrier, not a wait: a stream handles its requests in order on one
 * event loop, so when the next response is the listener just asked for, nothing else was sent
 * before it (or will be, for what happened before it).
 */
class DeltaStreamTest {

  private static final Node ENVOY =
      Node.newBuilder()
          .setId("sidecar~10.0.0.9~web-0.shop~shop.svc.cluster.local")
          .setCluster("web")
          .setUserAgentName("envoy")
          .build();

  private final List<EnvoyShaped> clients = new ArrayList<>();
  private ServeHarness serve;
  private GrpcJavaClient grpc;
  private int probes;

  private void serve(ServeHarness harness) {
    serve = harness;
    grpc = new GrpcJavaClient(serve.socket());
  }

  @AfterEach
  void close() throws Exception {
    for (EnvoyShaped client : clients) {
      client.requests.onCompleted();
    }
    if (grpc != null) {
      grpc.close();
    }
    if (serve != null) {
      serve.close();
    }
  }

  /** One delta ADS stream and what it received. */
  private final class EnvoyShaped {
    final ResponseRecorder<DeltaDiscoveryResponse> recorder = new ResponseRecorder<>();
    final BlockingQueue<DeltaDiscoveryResponse> responses = recorder.responses();
    final CompletableFuture<io.grpc.Status> ended = recorder.ended();
    final StreamObserver<DeltaDiscoveryRequest> requests;

    EnvoyShaped() {
      requests =
          AggregatedDiscoveryServiceGrpc.newStub(grpc.channel())
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .deltaAggregatedResources(recorder);
      clients.add(this);
    }

    DeltaDiscoveryResponse next() throws InterruptedException {
      DeltaDiscoveryResponse response = responses.poll(10, TimeUnit.SECONDS);
      assertThat(response).as("a response within 10 s").isNotNull();
      return response;
    }

    /** The next {@code count} responses, by type URL: one publish flushes each type in turn. */
    Map<String, DeltaDiscoveryResponse> nextOfEach(int count) throws InterruptedException {
      Map<String, DeltaDiscoveryResponse> byType = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        DeltaDiscoveryResponse response = next();
        assertThat(byType.put(response.getTypeUrl(), response)).as("one of each type").isNull();
      }
      return byType;
    }

    DeltaDiscoveryResponse next(XdsType type) throws InterruptedException {
      DeltaDiscoveryResponse response = next();
      assertThat(response.getTypeUrl()).isEqualTo(type.typeUrl());
      return response;
    }

    void send(DeltaDiscoveryRequest.Builder request) {
      requests.onNext(request.setNode(ENVOY).build());
    }

    /** Envoy's first CDS request: the legacy wildcard (no names), as Envoy sends it. */
    DeltaDiscoveryResponse allClusters() throws InterruptedException {
      send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(XdsType.CLUSTER.typeUrl()));
      return next(XdsType.CLUSTER);
    }

    void ack(DeltaDiscoveryResponse response) {
      send(
          DeltaDiscoveryRequest.newBuilder()
              .setTypeUrl(response.getTypeUrl())
              .setResponseNonce(response.getNonce()));
    }

    void subscribe(XdsType type, String... names) {
      send(
          DeltaDiscoveryRequest.newBuilder()
              .setTypeUrl(type.typeUrl())
              .addAllResourceNamesSubscribe(List.of(names)));
    }

    /**
     * Asks for a listener no test follows and checks it is the next response: whatever the stream
     * had to send before it has been sent, so an empty queue here means nothing was.
     */
    void nothingElseSent() throws InterruptedException {
      String probe = "probe" + (++probes) + ".shop";
      subscribe(XdsType.LISTENER, probe);
      DeltaDiscoveryResponse response = next();
      assertThat(response.getTypeUrl())
          .as("nothing before the probe's listener")
          .isEqualTo(XdsType.LISTENER.typeUrl());
      assertThat(names(response)).containsExactly(probe);
      ack(response);
    }
  }

  private static Endpoint endpoint(String ip) {
    return new Endpoint(
        ip, List.of(new Port("grpc", 9090, "TCP")), "a", "node-a", "p-" + ip, true, true, false);
  }

  private static ServiceState state(List<String> ips, int... ports) {
    List<Port> declared = new ArrayList<>();
    for (int port : ports) {
      declared.add(new Port("grpc" + (declared.isEmpty() ? "" : "-" + port), port, "TCP"));
    }
    return new ServiceState(ips.stream().map(DeltaStreamTest::endpoint).toList(), declared);
  }

  private static String cluster(String service, int port) {
    return service + ".shop.svc.cluster.local:" + port;
  }

  private static List<String> names(DeltaDiscoveryResponse response) {
    return response.getResourcesList().stream().map(Resource::getName).toList();
  }

  private static Map<String, String> versions(DeltaDiscoveryResponse response) {
    Map<String, String> versions = new LinkedHashMap<>();
    for (Resource resource : response.getResourcesList()) {
      versions.put(resource.getName(), resource.getVersion());
    }
    return versions;
  }

  private String serviceVersion(String name) {
    return Long.toString(serve.table().get(new ServiceKey("shop", name)).orElseThrow().version());
  }

  /** Three Services, the stream's wildcard CDS answered and ACKed, EDS for each cluster ACKed. */
  private EnvoyShaped envoyWithThreeServices() throws Exception {
    serve(new ServeHarness());
    serve.put("shop", "cart", state(List.of("10.0.0.1", "10.0.0.2"), 8080));
    serve.put("shop", "pay", state(List.of("10.0.1.1"), 8080, 9000));
    serve.put("shop", "web", state(List.of("10.0.2.1"), 80));
    EnvoyShaped envoy = new EnvoyShaped();
    DeltaDiscoveryResponse cds = envoy.allClusters();
    envoy.ack(cds);
    envoy.subscribe(XdsType.ENDPOINT, names(cds).toArray(String[]::new));
    envoy.ack(envoy.next(XdsType.ENDPOINT));
    envoy.nothingElseSent(); // every ACK above is in: the tests' publishes race with none
    return envoy;
  }

  @Test
  void theFirstResponseListsEveryClusterAndEdsFollowsWithTheServicesVersions() throws Exception {
    serve(new ServeHarness());
    serve.put("shop", "cart", state(List.of("10.0.0.1", "10.0.0.2"), 8080));
    serve.put("shop", "pay", state(List.of("10.0.1.1"), 8080, 9000));
    EnvoyShaped envoy = new EnvoyShaped();

    DeltaDiscoveryResponse cds = envoy.allClusters();
    assertThat(names(cds))
        .containsExactlyInAnyOrder(
            cluster("cart", 8080), cluster("pay", 8080), cluster("pay", 9000));
    assertThat(cds.getRemovedResourcesList()).isEmpty();
    assertThat(cds.getNonce()).isNotEmpty();
    assertThat(cds.getSystemVersionInfo()).isEqualTo(Long.toString(serve.table().version()));
    for (Resource resource : cds.getResourcesList()) {
      Cluster cluster = resource.getResource().unpack(Cluster.class);
      assertThat(cluster.getName()).isEqualTo(resource.getName());
      assertThat(cluster.getType()).isEqualTo(Cluster.DiscoveryType.EDS);
      assertThat(resource.getVersion()).isNotEmpty();
    }
    envoy.ack(cds);

    envoy.subscribe(XdsType.ENDPOINT, cluster("cart", 8080), cluster("pay", 9000));
    DeltaDiscoveryResponse eds = envoy.next(XdsType.ENDPOINT);
    assertThat(versions(eds))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                cluster("cart", 8080), serviceVersion("cart"),
                cluster("pay", 9000), serviceVersion("pay")));
    ClusterLoadAssignment cart =
        eds.getResources(names(eds).indexOf(cluster("cart", 8080)))
            .getResource()
            .unpack(ClusterLoadAssignment.class);
    assertThat(cart.getEndpoints(0).getLbEndpointsList()).hasSize(2);
    envoy.ack(eds);
    envoy.nothingElseSent();
  }

  @Test
  void addingAServiceSendsExactlyItsClusters() throws Exception {
    EnvoyShaped envoy = envoyWithThreeServices();
    serve.put("shop", "search", state(List.of("10.0.3.1"), 8080, 8081));

    DeltaDiscoveryResponse cds = envoy.next(XdsType.CLUSTER);
    assertThat(names(cds)).containsExactly(cluster("search", 8080), cluster("search", 8081));
    assertThat(cds.getRemovedResourcesList()).isEmpty();
    envoy.ack(cds);
    envoy.subscribe(XdsType.ENDPOINT, cluster("search", 8080), cluster("search", 8081));
    DeltaDiscoveryResponse eds = envoy.next(XdsType.ENDPOINT);
    assertThat(names(eds))
        .containsExactlyInAnyOrder(cluster("search", 8080), cluster("search", 8081));
    envoy.ack(eds);
    envoy.nothingElseSent();
  }

  @Test
  void withTwoThousandServicesOneChangeIsOneSmallMessage() throws Exception {
    serve(new ServeHarness());
    for (int i = 0; i < 2_000; i++) {
      serve.put("shop", "s" + i, state(List.of("10.1." + (i / 250) + "." + (i % 250 + 1)), 8080));
    }
    EnvoyShaped envoy = new EnvoyShaped();
    DeltaDiscoveryResponse all = envoy.allClusters();
    assertThat(all.getResourcesCount()).isEqualTo(2_000);
    envoy.ack(all);
    envoy.subscribe(XdsType.ENDPOINT, names(all).toArray(String[]::new));
    DeltaDiscoveryResponse assignments = envoy.next(XdsType.ENDPOINT);
    assertThat(assignments.getResourcesCount()).isEqualTo(2_000);
    envoy.ack(assignments);
    envoy.nothingElseSent();

    serve.put("shop", "added", state(List.of("10.2.0.1"), 8080));
    DeltaDiscoveryResponse added = envoy.next(XdsType.CLUSTER);
    assertThat(names(added)).containsExactly(cluster("added", 8080));
    assertThat(added.getSerializedSize()).isLessThan(all.getSerializedSize() / 500);
    envoy.ack(added);
    serve.put("shop", "s7", state(List.of("10.1.0.8", "10.1.0.9"), 8080));
    DeltaDiscoveryResponse changed = envoy.next(XdsType.ENDPOINT);
    assertThat(names(changed)).containsExactly(cluster("s7", 8080));
    envoy.ack(changed);
    envoy.nothingElseSent();
  }

  @Test
  void deletingAServiceSendsItsClustersAsRemovedAndAssignmentsThatDropEveryCall() throws Exception {
    EnvoyShaped envoy = envoyWithThreeServices();
    serve.remove("shop", "pay");

    Map<String, DeltaDiscoveryResponse> byType = envoy.nextOfEach(2);
    DeltaDiscoveryResponse cds = byType.get(XdsType.CLUSTER.typeUrl());
    assertThat(cds.getResourcesList()).isEmpty();
    assertThat(cds.getRemovedResourcesList())
        .containsExactlyInAnyOrder(cluster("pay", 8080), cluster("pay", 9000));
    // Envoy's EDS ignores removals: until it unsubscribes, its clusters get empty assignments.
    DeltaDiscoveryResponse eds = byType.get(XdsType.ENDPOINT.typeUrl());
    assertThat(eds.getRemovedResourcesList()).isEmpty();
    assertThat(names(eds)).containsExactlyInAnyOrder(cluster("pay", 8080), cluster("pay", 9000));
    for (Resource resource : eds.getResourcesList()) {
      ClusterLoadAssignment gone = resource.getResource().unpack(ClusterLoadAssignment.class);
      assertThat(XdsResources.dropsEverything(gone)).as("routes nothing").isTrue();
      assertThat(gone.getPolicy().getDropOverloads(0).getCategory())
          .isEqualTo(XdsResources.NO_SUCH_SERVICE);
    }
    envoy.ack(cds);
    envoy.ack(eds);
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .addResourceNamesUnsubscribe(cluster("pay", 8080))
            .addResourceNamesUnsubscribe(cluster("pay", 9000)));
    envoy.nothingElseSent();
  }

  @Test
  void anEndpointChangeSendsOneAssignmentAndNoClusters() throws Exception {
    EnvoyShaped envoy = envoyWithThreeServices();
    serve.put("shop", "cart", state(List.of("10.0.0.2", "10.0.0.3", "10.0.0.4"), 8080));

    DeltaDiscoveryResponse eds = envoy.next(XdsType.ENDPOINT);
    assertThat(versions(eds))
        .containsExactly(Map.entry(cluster("cart", 8080), serviceVersion("cart")));
    assertThat(
            eds.getResources(0)
                .getResource()
                .unpack(ClusterLoadAssignment.class)
                .getEndpoints(0)
                .getLbEndpointsList())
        .hasSize(3);
    envoy.ack(eds);
    envoy.nothingElseSent();
  }

  @Test
  void aResumingStreamGetsOnlyWhatChangedSinceTheVersionsItHas() throws Exception {
    EnvoyShaped first = envoyWithThreeServices();
    first.subscribe(XdsType.LISTENER, "held.shop");
    first.ack(first.next(XdsType.LISTENER));
    EnvoyShaped probe = new EnvoyShaped();
    probe.subscribe(
        XdsType.ENDPOINT, cluster("cart", 8080), cluster("pay", 8080), cluster("pay", 9000));
    Map<String, String> assignments = versions(probe.next(XdsType.ENDPOINT));
    Map<String, String> clusters = versions(new EnvoyShaped().allClusters());

    // While the sidecar is away: web leaves, cart changes, pay stays as it was.
    serve.remove("shop", "web");
    serve.put("shop", "cart", state(List.of("10.0.0.9"), 8080));

    EnvoyShaped envoy = new EnvoyShaped();
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.CLUSTER.typeUrl())
            .putAllInitialResourceVersions(clusters));
    DeltaDiscoveryResponse cds = envoy.next(XdsType.CLUSTER);
    assertThat(cds.getResourcesList()).as("the clusters it has are current").isEmpty();
    assertThat(cds.getRemovedResourcesList()).containsExactly(cluster("web", 80));
    envoy.ack(cds);

    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .addAllResourceNamesSubscribe(assignments.keySet())
            .putAllInitialResourceVersions(assignments));
    DeltaDiscoveryResponse eds = envoy.next(XdsType.ENDPOINT);
    assertThat(versions(eds))
        .as("only the one whose version it had is old")
        .containsExactly(Map.entry(cluster("cart", 8080), serviceVersion("cart")));
    envoy.ack(eds);
    envoy.nothingElseSent();
  }

  @Test
  void initialVersionsThatAreAllCurrentSendNothingButTheWildcardsFirstAnswer() throws Exception {
    EnvoyShaped first = envoyWithThreeServices();
    Map<String, String> clusters = versions(new EnvoyShaped().allClusters());

    EnvoyShaped envoy = new EnvoyShaped();
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.CLUSTER.typeUrl())
            .putAllInitialResourceVersions(clusters));
    DeltaDiscoveryResponse cds = envoy.next(XdsType.CLUSTER);
    assertThat(cds.getResourcesList()).isEmpty();
    assertThat(cds.getRemovedResourcesList()).isEmpty();
    envoy.ack(cds);
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .addResourceNamesSubscribe(cluster("cart", 8080))
            .putInitialResourceVersions(cluster("cart", 8080), serviceVersion("cart")));
    envoy.nothingElseSent();
    first.nothingElseSent();
  }

  @Test
  void aClusterVersionTheAgentDoesNotBuildIsResent() throws Exception {
    envoyWithThreeServices();
    Map<String, String> clusters = new LinkedHashMap<>(versions(new EnvoyShaped().allClusters()));
    // As from an agent whose clusters were encoded differently.
    clusters.put(cluster("web", 80), "0123456789abcdef");

    EnvoyShaped envoy = new EnvoyShaped();
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.CLUSTER.typeUrl())
            .putAllInitialResourceVersions(clusters));
    DeltaDiscoveryResponse cds = envoy.next(XdsType.CLUSTER);
    assertThat(names(cds)).containsExactly(cluster("web", 80));
    assertThat(cds.getResources(0).getVersion()).isNotEqualTo("0123456789abcdef");
    envoy.ack(cds);
    envoy.nothingElseSent();
  }

  @Test
  void anUnsubscribedAssignmentIsNoLongerSent() throws Exception {
    EnvoyShaped envoy = envoyWithThreeServices();
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .addResourceNamesUnsubscribe(cluster("cart", 8080))
            .addResourceNamesUnsubscribe("never.subscribed:1"));
    envoy.nothingElseSent(); // the unsubscription is in before the publishes
    serve.put("shop", "cart", state(List.of("10.0.0.7"), 8080));
    serve.put("shop", "web", state(List.of("10.0.2.7"), 80));

    DeltaDiscoveryResponse eds = envoy.next(XdsType.ENDPOINT);
    assertThat(names(eds)).containsExactly(cluster("web", 80));
    envoy.ack(eds);
    envoy.nothingElseSent();
  }

  @Test
  void aNackIsNotAnsweredWithTheSameContent() throws Exception {
    EnvoyShaped envoy = envoyWithThreeServices();
    serve.put("shop", "cart", state(List.of("10.0.0.5"), 8080));
    DeltaDiscoveryResponse rejected = envoy.next(XdsType.ENDPOINT);
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .setResponseNonce(rejected.getNonce())
            .setErrorDetail(Status.newBuilder().setCode(3).setMessage("rejected\nby the test")));
    envoy.nothingElseSent();

    serve.put("shop", "cart", state(List.of("10.0.0.6"), 8080));
    DeltaDiscoveryResponse next = envoy.next(XdsType.ENDPOINT);
    assertThat(versions(next))
        .containsExactly(Map.entry(cluster("cart", 8080), serviceVersion("cart")));
  }

  @Test
  void aStaleNonceAcknowledgesNothingButItsNamesCount() throws Exception {
    EnvoyShaped envoy = envoyWithThreeServices();
    serve.put("shop", "cart", state(List.of("10.0.0.5"), 8080));
    DeltaDiscoveryResponse older = envoy.next(XdsType.ENDPOINT);
    envoy.ack(older);
    serve.put("shop", "cart", state(List.of("10.0.0.6"), 8080));
    DeltaDiscoveryResponse latest = envoy.next(XdsType.ENDPOINT);

    // Answers the older response, and subscribes a name: the latest stays unacknowledged.
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .setResponseNonce(older.getNonce())
            .addResourceNamesSubscribe(cluster("late", 7000)));
    serve.put("shop", "web", state(List.of("10.0.2.8"), 80));
    envoy.nothingElseSent();

    envoy.ack(latest);
    DeltaDiscoveryResponse after = envoy.next(XdsType.ENDPOINT);
    assertThat(names(after)).containsExactlyInAnyOrder(cluster("web", 80), cluster("late", 7000));
    assertThat(versions(after)).containsEntry(cluster("late", 7000), DeltaStream.ABSENT);
  }

  @Test
  void nothingIsSentBeforeTheFirstSync() throws Exception {
    serve(ServeHarness.unsynced());
    serve.put("shop", "cart", state(List.of("10.0.0.1"), 8080));
    EnvoyShaped envoy = new EnvoyShaped();
    envoy.send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(XdsType.CLUSTER.typeUrl()));
    envoy.subscribe(XdsType.ENDPOINT, cluster("cart", 8080));
    Awaitility.await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(envoy.responses::isEmpty);

    serve.markSynced();
    assertThat(names(envoy.next(XdsType.CLUSTER))).containsExactly(cluster("cart", 8080));
    assertThat(names(envoy.next(XdsType.ENDPOINT))).containsExactly(cluster("cart", 8080));
  }

  @Test
  void aWildcardListenerSubscriptionGetsOneEmptyAnswer() throws Exception {
    serve(new ServeHarness());
    EnvoyShaped envoy = new EnvoyShaped();
    envoy.send(DeltaDiscoveryRequest.newBuilder().setTypeUrl(XdsType.LISTENER.typeUrl()));
    DeltaDiscoveryResponse lds = envoy.next(XdsType.LISTENER);
    assertThat(lds.getResourcesList()).isEmpty();
    envoy.ack(lds);
    envoy.nothingElseSent();
  }

  @Test
  void tooManyNamesEndTheStreamWithResourceExhausted() throws Exception {
    serve(new ServeHarness());
    EnvoyShaped envoy = new EnvoyShaped();
    List<String> names = new ArrayList<>();
    for (int i = 0; i <= SotwStream.MAX_NAMES; i++) {
      names.add("s" + i + ".shop");
    }
    envoy.send(
        DeltaDiscoveryRequest.newBuilder()
            .setTypeUrl(XdsType.ENDPOINT.typeUrl())
            .addAllResourceNamesSubscribe(names));
    io.grpc.Status status = envoy.ended.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED);
    assertThat(envoy.responses).isEmpty();
  }

  @Test
  void aMalformedRequestEndsTheStreamWithInvalidArgument() throws Exception {
    serve(new ServeHarness());
    MethodDescriptor<byte[], byte[]> raw =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName(
                "envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources")
            .setRequestMarshaller(RawBytes.MARSHALLER)
            .setResponseMarshaller(RawBytes.MARSHALLER)
            .build();
    ResponseRecorder<byte[]> recorder = new ResponseRecorder<>();
    StreamObserver<byte[]> requests =
        ClientCalls.asyncBidiStreamingCall(
            grpc.channel()
                .newCall(raw, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)),
            recorder);
    CompletableFuture<io.grpc.Status> ended = recorder.ended();
    // Field 2 (type_url) as a length-delimited string whose length runs past the message's end.
    requests.onNext(new byte[] {0x12, 0x7f, 'x'});
    io.grpc.Status status = ended.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("DeltaDiscoveryRequest");
    requests.onCompleted();
  }
}
