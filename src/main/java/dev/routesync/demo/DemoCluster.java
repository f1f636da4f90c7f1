package dev.routesync.demo;

import dev.routesync.demo.DemoObjects.Conditions;
import dev.routesync.demo.DemoObjects.Pod;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.ConfigBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pretend cluster for {@code routesync demo}: fabric8's mock API server in CRUD mode on loopback
 * (plain HTTP), seeded with a few Services and slices, and a churn loop that scales, rolls and
 * drains pods every few seconds. The agent watches it through a real kubeconfig, exactly as it
 * would a real cluster.
 */
public final class DemoCluster implements AutoCloseable {

  static final String NAMESPACE = "shop";
  private static final Logger LOG = LoggerFactory.getLogger(DemoCluster.class);

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final ScheduledExecutorService churn;
  private final WatchBookmarks bookmarks;
  private final List<Pod> cart = new ArrayList<>();
  private final List<Pod> checkout = new ArrayList<>();
  private final List<Pod> payments = new ArrayList<>();
  private int step;
  private int nextPodNumber = 100;

  private DemoCluster(KubernetesMockServer server, WatchBookmarks bookmarks) {
    this.server = server;
    this.bookmarks = bookmarks;
    this.client = server.createClient();
    this.churn =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "demo-churn");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** How often a real API server sends each watch a bookmark: about once a minute. */
  static final Duration BOOKMARK_PERIOD = Duration.ofMinutes(1);

  /**
   * Starts the mock API server on a free loopback port and seeds it. Its watches get a bookmark a
   * minute, as from a real API server: the mock sends none, and the agent relists a watch that
   * hears nothing for {@code --watch-silence}, warning that it looks hung.
   */
  public static DemoCluster start() {
    return start(BOOKMARK_PERIOD);
  }

  static DemoCluster start(Duration bookmarkPeriod) {
    KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(new HashMap<>());
    // Indexed by node, as the API server is: the drift detector watches this node's Pods.
    KubernetesCrudDispatcher store = NodeIndex.install(crud);
    WatchBookmarks bookmarks = new WatchBookmarks(store::requestResourceVersion);
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            return bookmarks.track(request, crud.dispatch(request));
          }

          @Override
          public void shutdown() {
            bookmarks.close();
            crud.shutdown();
          }
        };
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            new HashMap<>(),
            dispatcher,
            /* useHttps= */ false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    DemoCluster cluster = new DemoCluster(server, bookmarks);
    cluster.seed();
    bookmarks.every(bookmarkPeriod);
    return cluster;
  }

  /** Bookmarks sent so far, over all watches. */
  int bookmarksSent() {
    return bookmarks.sent();
  }

  /** The API server's URL, e.g. {@code http://127.0.0.1:41234}. */
  public String url() {
    return "http://" + server.getHostName() + ":" + server.getPort();
  }

  /** Writes a kubeconfig for this server into {@code dir} and returns its path. */
  public Path writeKubeconfig(Path dir) throws IOException {
    Config config =
        new ConfigBuilder()
            .withApiVersion("v1")
            .withKind("Config")
            .addNewCluster()
            .withName("demo")
            .withNewCluster()
            .withServer(url())
            .endCluster()
            .endCluster()
            .addNewUser()
            .withName("demo")
            .withNewUser()
            .withToken("demo")
            .endUser()
            .endUser()
            .addNewContext()
            .withName("demo")
            .withNewContext()
            .withCluster("demo")
            .withUser("demo")
            .withNamespace(NAMESPACE)
            .endContext()
            .endContext()
            .withCurrentContext("demo")
            .build();
    String kubeconfig = new KubernetesSerialization().asYaml(config);
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, kubeconfig);
    return file;
  }

  /** Runs one churn step every {@code periodMillis}. */
  public void startChurn(long periodMillis) {
    churn.scheduleWithFixedDelay(
        this::churnSafely, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** Stops churning; call before stopping an agent that watches this cluster. */
  public void stopChurn() {
    churn.shutdownNow();
  }

  private void seed() {
    for (String name : List.of("cart", "checkout", "payments")) {
      client.resource(DemoObjects.service(NAMESPACE, name, true)).create();
    }
    client.resource(DemoObjects.service(NAMESPACE, "legacy-admin", false)).create();
    cart.add(Pod.ready("cart-1", "10.1.0.11"));
    cart.add(Pod.ready("cart-2", "10.1.0.12"));
    cart.add(new Pod("cart-3", "10.1.0.13", "node-b", "zone-b", Conditions.NOT_READY));
    for (int i = 1; i <= 3; i++) {
      checkout.add(Pod.ready("checkout-" + i, "10.1.1." + (10 + i)));
    }
    payments.add(Pod.ready("payments-1", "10.1.2.11"));
    payments.add(Pod.ready("payments-2", "10.1.2.12"));
    apply(cartSlice());
    apply(checkoutSlice());
    applyPayments();
    // Zoned: trafficDistribution PreferClose, one pod per zone-a and two in zone-b, hinted by
    // zone; an agent in zone-a (the demo's --zone) routes to search-1 first.
    Service search = DemoObjects.service(NAMESPACE, "search", true);
    search.getSpec().setTrafficDistribution("PreferClose");
    client.resource(search).create();
    apply(
        DemoObjects.zonedSlice(
            NAMESPACE,
            "search-4xq8d",
            "search",
            8080,
            List.of(
                new Pod("search-1", "10.1.3.11", "node-a", "zone-a", Conditions.READY),
                new Pod("search-2", "10.1.3.12", "node-b", "zone-b", Conditions.READY),
                new Pod("search-3", "10.1.3.13", "node-c", "zone-b", Conditions.READY))));
    seedRenamedPortIncident();
    // Not mesh-managed: the agent must never show it.
    apply(
        DemoObjects.slice(
            NAMESPACE,
            "legacy-admin-x1",
            "legacy-admin",
            false,
            8080,
            List.of(Pod.ready("legacy-admin-1", "10.1.9.11"))));
  }

  /**
   * The rollout incident the drift detector is for: Service {@code quote} routes to {@code
   * targetPort: http}, and its new pod renamed the container port to {@code http-api}. The pod is
   * Ready, but no endpoint of it carries the port (the controller lists it in a slice with {@code
   * ports: null}), so it gets no traffic: {@code routesync get drift} shows it on the demo's node.
   */
  private void seedRenamedPortIncident() {
    client.resource(DemoObjects.service(NAMESPACE, "quote", true)).create();
    // Created first: the API server gives each pod its uid, which the slices name.
    var old =
        client
            .resource(
                DemoObjects.runningPod(
                    NAMESPACE, "quote", Pod.ready("quote-old-1", "10.1.4.11"), "http"))
            .create();
    var renamed =
        client
            .resource(
                DemoObjects.runningPod(
                    NAMESPACE, "quote", Pod.ready("quote-new-1", "10.1.4.12"), "http-api"))
            .create();
    apply(DemoObjects.controllerSlice("quote-7c9f2", "quote", 8080, List.of(old)));
    apply(DemoObjects.controllerSlice("quote-k2m8x", "quote", null, List.of(renamed)));
  }

  private void churnSafely() {
    try {
      churnStep(step++ % 6);
    } catch (RuntimeException e) {
      LOG.warn("demo churn step failed: {}", e.toString());
    }
  }

  private void churnStep(int which) {
    switch (which) {
      case 0 -> {
        cart.set(2, cart.get(2).with(Conditions.READY));
        apply(cartSlice());
        LOG.info("demo: shop/cart scaled up, cart-3 became ready (3 endpoints)");
      }
      case 1 -> {
        cart.set(2, cart.get(2).with(Conditions.NOT_READY));
        apply(cartSlice());
        LOG.info("demo: shop/cart scaled down, cart-3 not ready (2 endpoints)");
      }
      case 2 -> {
        int number = nextPodNumber++;
        checkout.add(
            new Pod(
                "checkout-" + number,
                "10.1.1." + (number % 200 + 20),
                "node-b",
                "zone-b",
                Conditions.READY));
        checkout.set(0, checkout.get(0).with(Conditions.TERMINATING_SERVING));
        apply(checkoutSlice());
        LOG.info(
            "demo: shop/checkout rolling: {} up, {} terminating",
            checkout.get(checkout.size() - 1).name(),
            checkout.get(0).name());
      }
      case 3 -> {
        Pod gone = checkout.remove(0);
        apply(checkoutSlice());
        LOG.info("demo: shop/checkout rolling: {} gone", gone.name());
      }
      case 4 -> {
        payments.set(0, payments.get(0).with(Conditions.NOT_READY));
        applyPayments();
        LOG.info("demo: shop/payments payments-1 failed readiness");
      }
      default -> {
        payments.set(0, payments.get(0).with(Conditions.READY));
        applyPayments();
        LOG.info("demo: shop/payments payments-1 ready again");
      }
    }
  }

  private EndpointSlice cartSlice() {
    return DemoObjects.slice(NAMESPACE, "cart-7fk2p", "cart", true, 8080, cart);
  }

  private EndpointSlice checkoutSlice() {
    return DemoObjects.slice(NAMESPACE, "checkout-q9x1z", "checkout", true, 8443, checkout);
  }

  // Two slices for one Service, with payments-2 in both, to show merging and de-duplication.
  private void applyPayments() {
    apply(DemoObjects.slice(NAMESPACE, "payments-a1", "payments", true, 9090, payments));
    apply(
        DemoObjects.slice(
            NAMESPACE,
            "payments-b2",
            "payments",
            true,
            9090,
            List.of(payments.get(1), Pod.ready("payments-3", "10.1.2.13"))));
  }

  private void apply(EndpointSlice slice) {
    client.resource(slice).createOr(NonDeletingOperation::update);
  }

  @Override
  public void close() {
    churn.shutdownNow();
    bookmarks.close();
    client.close();
    // The mock can hold its event loop for up to a minute when a client closed a watch while it
    // was sending on it (the agent's watches close just before this). The demo is over either
    // way: the server is destroyed on a daemon thread, so Ctrl-C never waits for it (a blocking
    // destroy here once outlasted the shutdown timeout and made the demo exit 1).
    Thread stopper = new Thread(this::destroyServer, "demo-mock-stop");
    stopper.setDaemon(true);
    stopper.start();
  }

  private void destroyServer() {
    try {
      server.destroy();
    } catch (RuntimeException e) {
      LOG.debug("mock API server did not stop cleanly: {}", e.toString());
    }
  }
}
