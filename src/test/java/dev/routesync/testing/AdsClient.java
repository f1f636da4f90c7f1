package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.rpc.Status;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.Channel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/**
 * A scripted state-of-the-world ADS client: one {@code StreamAggregatedResources} stream over
 * grpc-java (the Envoy API's own stub), which sends exactly the requests the test writes and never
 * acknowledges on its own, so a test can drive ACKs, NACKs, stale nonces and resubscriptions.
 *
 * <p>Responses wait in a queue per type URL; every take has a timeout, and the stream itself a
 * deadline, so no test can hang on a server that stays silent.
 */
public final class AdsClient implements AutoCloseable {

  public static final String LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";
  public static final String RDS = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";
  public static final String CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
  public static final String EDS =
      "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

  /** How long a take waits for a response before the test fails. */
  public static final Duration TAKE_TIMEOUT = Duration.ofSeconds(10);

  /** No test keeps a stream open longer than this. */
  public static final Duration STREAM_DEADLINE = Duration.ofMinutes(3);

  private final Map<String, BlockingQueue<DiscoveryResponse>> queues = new ConcurrentHashMap<>();
  private final Map<String, TypeState> types = new ConcurrentHashMap<>();
  private final AtomicInteger received = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicReference<ClientCallStreamObserver<DiscoveryRequest>> call =
      new AtomicReference<>();
  private final Node node;
  private volatile boolean ended;
  private boolean nodeSent;

  /** What the client has subscribed to and accepted for one type. */
  private static final class TypeState {
    List<String> names = List.of();
    String acceptedVersion = "";
    String lastNonce = "";
  }

  private AdsClient(Node node) {
    this.node = node;
  }

  /** A node as a gRPC client's bootstrap describes it: an id, a zone, a user agent. */
  public static Node node(String id, String zone) {
    return Node.newBuilder()
        .setId(id)
        .setUserAgentName("routesync-ads-conformance")
        .setLocality(Locality.newBuilder().setZone(zone))
        .build();
  }

  /** Opens a stream on {@code channel}; nothing is sent until the first subscribe. */
  public static AdsClient open(Channel channel, Node node) {
    AdsClient client = new AdsClient(node);
    AggregatedDiscoveryServiceGrpc.newStub(channel)
        .withDeadlineAfter(STREAM_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
        .streamAggregatedResources(client.new Responses());
    if (client.call.get() == null) {
      throw new IllegalStateException("grpc-java did not hand over the call");
    }
    return client;
  }

  private final class Responses
      implements ClientResponseObserver<DiscoveryRequest, DiscoveryResponse> {
    @Override
    public void beforeStart(ClientCallStreamObserver<DiscoveryRequest> requestStream) {
      call.set(requestStream);
    }

    @Override
    public void onNext(DiscoveryResponse response) {
      queue(response.getTypeUrl()).add(response);
      received.incrementAndGet();
    }

    @Override
    public void onError(Throwable t) {
      failure.set(t);
      ended = true;
    }

    @Override
    public void onCompleted() {
      ended = true;
    }
  }

  private BlockingQueue<DiscoveryResponse> queue(String typeUrl) {
    return queues.computeIfAbsent(typeUrl, t -> new LinkedBlockingQueue<>());
  }

  private TypeState type(String typeUrl) {
    return types.computeIfAbsent(typeUrl, t -> new TypeState());
  }

  /**
   * Subscribes {@code typeUrl} to exactly {@code names} (empty: wildcard), carrying the type's
   * accepted version and last nonce as a real client's resubscription does.
   */
  public synchronized void subscribe(String typeUrl, Collection<String> names) {
    TypeState state = type(typeUrl);
    state.names = List.copyOf(names);
    send(
        DiscoveryRequest.newBuilder()
            .setTypeUrl(typeUrl)
            .addAllResourceNames(state.names)
            .setVersionInfo(state.acceptedVersion)
            .setResponseNonce(state.lastNonce)
            .build());
  }

  public void subscribe(String typeUrl, String... names) {
    subscribe(typeUrl, List.of(names));
  }

  /** Accepts {@code response}: its version and nonce, with the type's current names. */
  public synchronized void ack(DiscoveryResponse response) {
    TypeState state = type(response.getTypeUrl());
    state.acceptedVersion = response.getVersionInfo();
    state.lastNonce = response.getNonce();
    send(
        DiscoveryRequest.newBuilder()
            .setTypeUrl(response.getTypeUrl())
            .addAllResourceNames(state.names)
            .setVersionInfo(state.acceptedVersion)
            .setResponseNonce(state.lastNonce)
            .build());
  }

  /**
   * Rejects {@code response}: its nonce, the previously accepted version, and an error detail, as
   * grpc-java and Envoy NACK.
   */
  public synchronized void nack(DiscoveryResponse response, String detail) {
    TypeState state = type(response.getTypeUrl());
    state.lastNonce = response.getNonce();
    send(
        DiscoveryRequest.newBuilder()
            .setTypeUrl(response.getTypeUrl())
            .addAllResourceNames(state.names)
            .setVersionInfo(state.acceptedVersion)
            .setResponseNonce(state.lastNonce)
            .setErrorDetail(Status.newBuilder().setCode(3).setMessage(detail))
            .build());
  }

  /** Sends {@code request} as it is (the node is added to the stream's first request). */
  public synchronized void send(DiscoveryRequest request) {
    DiscoveryRequest toSend = request;
    if (!nodeSent) {
      toSend = request.toBuilder().setNode(node).build();
      nodeSent = true;
    }
    call.get().onNext(toSend);
  }

  /** The next response of {@code typeUrl}, waiting at most {@link #TAKE_TIMEOUT}. */
  public DiscoveryResponse take(String typeUrl) {
    return take(typeUrl, TAKE_TIMEOUT);
  }

  public DiscoveryResponse take(String typeUrl, Duration timeout) {
    DiscoveryResponse response;
    try {
      response = queue(typeUrl).poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + typeUrl, e);
    }
    if (response == null) {
      throw new AssertionError(
          "no "
              + shortType(typeUrl)
              + " response within "
              + timeout
              + (ended ? "; the stream ended: " + failure.get() : ""));
    }
    return response;
  }

  /** Takes the next response of {@code typeUrl} and acknowledges it. */
  public DiscoveryResponse takeAndAck(String typeUrl) {
    return takeAndAck(typeUrl, TAKE_TIMEOUT);
  }

  public DiscoveryResponse takeAndAck(String typeUrl, Duration timeout) {
    DiscoveryResponse response = take(typeUrl, timeout);
    ack(response);
    return response;
  }

  /** Responses of {@code typeUrl} received but not taken yet. */
  public int pending(String typeUrl) {
    return queue(typeUrl).size();
  }

  /** Every response received on this stream so far, of any type. */
  public int received() {
    return received.get();
  }

  /** Whether the server ended the stream (or it failed); see {@link #failure()}. */
  public boolean ended() {
    return ended;
  }

  public Throwable failure() {
    return failure.get();
  }

  /** Fails unless no response of any type arrives for {@code period} (Awaitility's during). */
  public void expectQuiet(Duration period) {
    int before = received();
    Awaitility.await("no response for " + period)
        .during(period)
        .atMost(period.plusSeconds(2))
        .until(() -> received() == before);
  }

  /** The resources of {@code response}, unpacked as {@code type}. */
  public static <T extends Message> List<T> resources(DiscoveryResponse response, Class<T> type) {
    List<T> resources = new ArrayList<>();
    for (Any any : response.getResourcesList()) {
      try {
        resources.add(any.unpack(type));
      } catch (InvalidProtocolBufferException e) {
        throw new AssertionError("not a " + type.getSimpleName() + ": " + any.getTypeUrl(), e);
      }
    }
    return resources;
  }

  public static List<ClusterLoadAssignment> assignments(DiscoveryResponse response) {
    assertThat(response.getTypeUrl()).isEqualTo(EDS);
    return resources(response, ClusterLoadAssignment.class);
  }

  public static List<Cluster> clusters(DiscoveryResponse response) {
    assertThat(response.getTypeUrl()).isEqualTo(CDS);
    return resources(response, Cluster.class);
  }

  public static List<Listener> listeners(DiscoveryResponse response) {
    assertThat(response.getTypeUrl()).isEqualTo(LDS);
    return resources(response, Listener.class);
  }

  /** The inline route configuration of a listener's API listener (its HttpConnectionManager). */
  public static HttpConnectionManager connectionManager(Listener listener) {
    try {
      return listener.getApiListener().getApiListener().unpack(HttpConnectionManager.class);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("api_listener of " + listener.getName(), e);
    }
  }

  /** The one cluster the listener's inline route sends everything to. */
  public static String routedCluster(Listener listener) {
    RouteConfiguration routes = connectionManager(listener).getRouteConfig();
    assertThat(routes.getVirtualHostsList())
        .as("virtual hosts of " + listener.getName())
        .isNotEmpty();
    return routes.getVirtualHosts(0).getRoutes(0).getRoute().getCluster();
  }

  private static String shortType(String typeUrl) {
    return typeUrl.substring(typeUrl.lastIndexOf('.') + 1);
  }

  /** Cancels the stream (the channel is the caller's to shut down). */
  @Override
  public void close() {
    ClientCallStreamObserver<DiscoveryRequest> stream = call.get();
    if (stream != null && !ended) {
      stream.cancel("test done", null);
    }
  }
}
