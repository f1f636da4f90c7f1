package dev.routesync.testing;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.testing.FaultProxy.Fault;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The fault suite's proxy does what it claims, against the CRUD mock and fabric8's client. */
class FaultProxyTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @Test
  void aFaultedRequestIsAnsweredAsTheApiServerWouldAndTheNextOneIsForwarded() throws Exception {
    try (MockCluster cluster = new MockCluster();
        FaultProxy proxy = new FaultProxy(cluster.port())) {
      proxy.failRequests(Fault.TOO_MANY_REQUESTS, 1.0, 1);
      HttpResponse<String> throttled = get(proxy, "/api/v1/services");
      assertThat(throttled.statusCode()).isEqualTo(429);
      assertThat(throttled.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(throttled.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(throttled.body())
          .contains("\"kind\":\"Status\"", "\"reason\":\"TooManyRequests\"", "\"code\":429");

      proxy.failRequests(Fault.SERVER_ERROR, 1.0, 1);
      HttpResponse<String> failed = get(proxy, "/api/v1/services");
      assertThat(failed.statusCode()).isEqualTo(500);
      assertThat(failed.body()).contains("\"reason\":\"InternalError\"", "\"code\":500");

      proxy.stopFailing();
      HttpResponse<String> listed = get(proxy, "/api/v1/services");
      assertThat(listed.statusCode()).isEqualTo(200);
      assertThat(listed.body()).contains("\"kind\":\"List\"");
      assertThat(proxy.answered(Fault.TOO_MANY_REQUESTS)).isEqualTo(1);
      assertThat(proxy.answered(Fault.SERVER_ERROR)).isEqualTo(1);
      assertThat(proxy.requests()).isEqualTo(3);
    }
  }

  @Test
  void fabric8SeesTheFaultsStatus() throws Exception {
    try (MockCluster cluster = new MockCluster();
        FaultProxy proxy = new FaultProxy(cluster.port());
        KubernetesClient client = client(proxy)) {
      proxy.failRequests(Fault.TOO_MANY_REQUESTS, 1.0, 1);
      var error =
          org.assertj.core.api.Assertions.catchThrowableOfType(
              io.fabric8.kubernetes.client.KubernetesClientException.class,
              () -> client.services().inAnyNamespace().list());
      assertThat(error.getCode()).isEqualTo(429);
      assertThat(error.getStatus().getDetails().getRetryAfterSeconds()).isEqualTo(1);
    }
  }

  @Test
  void aWatchPassesThroughItsUpgradeUntilBlackHoledAndItsServerSideOutlivesItsClient()
      throws Exception {
    try (MockCluster cluster = new MockCluster();
        FaultProxy proxy = new FaultProxy(cluster.port());
        KubernetesClient client = client(proxy)) {
      Set<String> seen = ConcurrentHashMap.newKeySet();
      Watch watch =
          client
              .discovery()
              .v1()
              .endpointSlices()
              .inAnyNamespace()
              .watch(
                  new Watcher<EndpointSlice>() {
                    @Override
                    public void eventReceived(Action action, EndpointSlice slice) {
                      seen.add(slice.getMetadata().getName());
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  });
      assertThat(proxy.upgrades()).isEqualTo(1);
      cluster.apply(slice("shop", "web-a", "web", true, 8080, List.of()));
      await().atMost(WAIT).until(() -> seen.contains("web-a"));

      assertThat(proxy.blackHole()).isEqualTo(1);
      long discarded = proxy.discardedBytes();
      cluster.apply(slice("shop", "web-b", "web", true, 8080, List.of()));
      // The event was sent, and dropped here: it cannot arrive later.
      await().atMost(WAIT).until(() -> proxy.discardedBytes() > discarded);
      assertThat(seen).doesNotContain("web-b");

      // The client goes; the server's side stays open, for the proxy's close.
      proxy.dropClients();
      await().atMost(WAIT).until(() -> proxy.openClients() == 0);
      assertThat(proxy.orphans()).isEqualTo(1);
      watch.close();
    }
  }

  private HttpResponse<String> get(FaultProxy proxy, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(proxy.url() + path))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static KubernetesClient client(FaultProxy proxy) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(Config.empty())
                .withMasterUrl(proxy.url())
                .withRequestTimeout(10_000)
                .withConnectionTimeout(5_000)
                .withRequestRetryBackoffLimit(0)
                .build())
        .build();
  }
}
