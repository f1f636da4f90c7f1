package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.GenerationListener;
import dev.routesync.kube.watch.ResourceSpec;
import dev.routesync.kube.watch.WatchEvent;
import dev.routesync.sync.Batch;
import dev.routesync.sync.Coalescer;
import dev.routesync.sync.CoalescerSettings;
import dev.routesync.sync.FakeScheduler;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableLimits;
import dev.routesync.testing.ApiServerServices;
import dev.routesync.testing.MockCluster;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Services watch: declared ports as the table keeps them, and the work its events make. */
class ServicePortsTest {

  private static final ServiceKey QUOTE = new ServiceKey("shop", "quote");
  private static final ServiceKey CART = new ServiceKey("shop", "cart");

  private final FakeScheduler scheduler = new FakeScheduler();
  private final List<Batch> batches = new ArrayList<>();
  private final Coalescer coalescer =
      new Coalescer(scheduler, CoalescerSettings.defaults(), batches::add);
  private final ServicePorts ports = new ServicePorts();
  private final ServicePortsSink sink = new ServicePortsSink(ports, coalescer);

  private static Service service(String name, ServicePortBuilder... declared) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName(name)
        .addToLabels("mesh-managed", "true")
        .endMetadata()
        .withNewSpec()
        .withPorts(List.of(declared).stream().map(ServicePortBuilder::build).toList())
        .endSpec()
        .build();
  }

  private static ServicePortBuilder port(String name, Integer number, String protocol) {
    return new ServicePortBuilder().withName(name).withPort(number).withProtocol(protocol);
  }

  @Test
  void declaredPortsAreSortedByNameWithTheDefaultsFilledIn() {
    Service service =
        service(
            "quote",
            port("metrics", 9090, "TCP"),
            port("http", 80, null),
            port("dns", 53, "UDP"),
            port("broken", 0, "TCP"),
            port("missing", null, "TCP"));

    assertThat(ServicePorts.portsOf(service))
        .containsExactly(
            new Port("dns", 53, "UDP"),
            new Port("http", 80, "TCP"),
            new Port("metrics", 9090, "TCP"));
  }

  @Test
  void ofMorePortsThanATableEntryHoldsTheFirstByNameAreKeptAndOverLongNamesLeftOut() {
    List<ServicePortBuilder> declared = new ArrayList<>();
    for (int i = 1_099; i >= 0; i--) { // declared in reverse: the table's order decides
      declared.add(port(String.format("p%04d", i), 10_000 + i, "TCP"));
    }
    declared.add(port("x".repeat(TableLimits.MAX_STRING_BYTES + 1), 80, "TCP"));

    List<Port> kept =
        ServicePorts.portsOf(service("wide", declared.toArray(ServicePortBuilder[]::new)));

    assertThat(kept).hasSize(TableLimits.MAX_PORTS);
    assertThat(kept.get(0)).isEqualTo(new Port("p0000", 10_000, "TCP"));
    assertThat(kept.get(TableLimits.MAX_PORTS - 1)).isEqualTo(new Port("p1023", 11_023, "TCP"));
  }

  @Test
  void aSingleUnnamedPortHasTheEmptyName() {
    assertThat(ServicePorts.portsOf(service("quote", port(null, 80, "TCP"))))
        .containsExactly(new Port("", 80, "TCP"));
  }

  @Test
  void aServiceWithoutPortsOrSpecDeclaresNone() {
    assertThat(ServicePorts.portsOf(service("headless"))).isEmpty();
    Service noSpec =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("a")
            .withName("b")
            .endMetadata()
            .build();
    assertThat(ServicePorts.portsOf(noSpec)).isEmpty();
  }

  /** External names the API server accepts (a DNS-1123 subdomain, a final dot allowed). */
  static List<String> dnsNames() {
    return List.of(
        "db.example.com",
        "db.example.com.",
        "a",
        "0-a.b-1",
        "x".repeat(63) + ".example.com",
        String.join(".", "a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61)));
  }

  /** External names the API server refuses, or that no DNS label can hold. */
  static List<String> notDnsNames() {
    return List.of(
        "<script>alert(1)</script>",
        "*.example.com",
        "DB.example.com",
        "-db.example.com",
        "db-.example.com",
        "db..example.com",
        ".example.com",
        "db example.com",
        "db.example.com..",
        "db_1.example.com",
        "db.example.com/path",
        "\uFF44b.example.com",
        "db.example.com\n",
        ".",
        "x".repeat(64) + ".example.com");
  }

  @ParameterizedTest
  @MethodSource("dnsNames")
  void anExternalNameThatIsADnsNameIsServed(String name) {
    assertThat(ServicePorts.trafficOf(externalName("alias", name)).externalName()).isEqualTo(name);
  }

  @ParameterizedTest
  @MethodSource("notDnsNames")
  void anExternalNameThatIsNoDnsNameIsNotServed(String name) {
    assertThat(ServicePorts.trafficOf(externalName("alias", name)))
        .isSameAs(ServiceTraffic.DEFAULT);
  }

  private static Service externalName(String service, String name) {
    Service alias = service(service, port("http", 80, "TCP"));
    alias.getSpec().setType("ExternalName");
    alias.getSpec().setExternalName(name);
    return alias;
  }

  @Test
  void nothingIsKnownBeforeTheFirstGenerationSynced() {
    assertThat(ports.portsOf(QUOTE)).isEmpty();
  }

  @Test
  void anEventMarksItsServiceDirtyAsOfItsArrival() {
    scheduler.advance(Duration.ofMillis(300));

    sink.event(
        new WatchEvent<>(
            WatchEvent.Type.UPDATED, null, service("quote", port("http", 80, "TCP")), 7));

    assertThat(batches).hasSize(1);
    assertThat(batches.get(0).keys()).containsExactly(QUOTE);
    assertThat(batches.get(0).changedAt()).containsEntry(QUOTE, 7L);
  }

  @Test
  void anEventWithoutANameIsDropped() {
    Service nameless =
        new ServiceBuilder().withNewMetadata().withNamespace("shop").endMetadata().build();

    sink.event(new WatchEvent<>(WatchEvent.Type.ADDED, null, nameless, 0));

    scheduler.advance(Duration.ofSeconds(1));
    assertThat(batches).isEmpty();
  }

  /** Real generations of Services informers on the CRUD mock API server. */
  @Nested
  class WhenARelistSwapsIn {

    private final MockCluster cluster = new MockCluster();
    private final List<Generation<Service>> started = new ArrayList<>();
    private final List<WatchEvent<Service>> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
      cluster.close();
      started.forEach(Generation::stop);
    }

    private void apply(Service service) {
      cluster.client().resource(service).createOr(NonDeletingOperation::update);
    }

    private Generation<Service> synced(int id, int expected) throws Exception {
      return synced(
          id,
          expected,
          ServicePorts.spec(
              cluster.client(), WatchSettings.of(List.of(), "mesh-managed=true"), ports));
    }

    private Generation<Service> synced(int id, int expected, ResourceSpec<Service> spec)
        throws Exception {
      CompletableFuture<Void> synced = new CompletableFuture<>();
      Generation<Service> generation =
          new Generation<>(
              id,
              spec,
              new GenerationListener<>() {
                @Override
                public void synced(Generation<Service> generation) {
                  synced.complete(null);
                }

                @Override
                public void failed(Generation<Service> generation, Throwable error) {
                  synced.completeExceptionally(error);
                }

                @Override
                public void event(Generation<Service> generation, WatchEvent<Service> event) {
                  events.add(event);
                }

                @Override
                public void relistingInPlace(Generation<Service> generation) {}
              },
              System::nanoTime);
      started.add(generation);
      generation.start();
      synced.get(20, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(10)).until(() -> generation.objects().size() == expected);
      return generation;
    }

    @Test
    void thePortsAreReadFromTheServedGenerationAndEveryServiceOfEitherIsRecomputedAsOneBatch()
        throws Exception {
      apply(service("quote", port("http", 80, "TCP")));
      apply(service("cart", port("http", 80, "TCP")));
      Generation<Service> first = synced(1, 2);

      sink.replaced(null, first);

      assertThat(ports.portsOf(QUOTE)).containsExactly(new Port("http", 80, "TCP"));
      assertThat(batches)
          .singleElement()
          .satisfies(b -> assertThat(b.cause()).isEqualTo(Batch.Cause.RELIST));
      assertThat(batches.get(0).keys()).containsExactlyInAnyOrder(QUOTE, CART);

      // cart is deleted and quote's port renamed while the first generation is away.
      first.stop();
      cluster.client().resource(service("cart")).delete();
      apply(service("quote", port("web", 80, "TCP")));
      Generation<Service> second = synced(2, 1);

      sink.replaced(first, second);

      assertThat(batches).hasSize(2);
      // cart is only in the first generation: recomputed, so it loses its ports in that version.
      assertThat(batches.get(1).keys()).containsExactlyInAnyOrder(QUOTE, CART);
      assertThat(ports.portsOf(QUOTE)).containsExactly(new Port("web", 80, "TCP"));
      assertThat(ports.portsOf(CART)).isEmpty();
    }

    @Test
    void trafficDistributionAndInternalTrafficPolicySurviveTheCompactStore() throws Exception {
      Service quote = service("quote", port("http", 80, "TCP"));
      quote.getSpec().setTrafficDistribution("PreferClose");
      quote.getSpec().setInternalTrafficPolicy("Local");
      apply(quote);
      apply(service("cart", port("http", 80, "TCP")));
      Generation<Service> first = synced(1, 2);

      sink.replaced(null, first);

      assertThat(ports.trafficOf(QUOTE)).isEqualTo(ServiceTraffic.of("PreferClose", true));
      assertThat(ports.trafficOf(CART)).isSameAs(ServiceTraffic.DEFAULT);
      assertThat(ports.trafficOf(new ServiceKey("shop", "absent")))
          .isSameAs(ServiceTraffic.DEFAULT);
    }

    @Test
    void theFirstIpFamilySurvivesTheCompactStore() throws Exception {
      Service quote = service("quote", port("http", 80, "TCP"));
      quote.getSpec().setIpFamilies(List.of("IPv6", "IPv4"));
      quote.getSpec().setIpFamilyPolicy("RequireDualStack");
      Service cart = service("cart", port("http", 80, "TCP"));
      cart.getSpec().setIpFamilies(List.of("IPv4", "IPv6"));
      apply(quote);
      apply(cart);
      Generation<Service> first = synced(1, 2);

      sink.replaced(null, first);

      assertThat(ports.trafficOf(QUOTE)).isEqualTo(ServiceTraffic.of(null, false, true));
      assertThat(ports.trafficOf(CART)).isSameAs(ServiceTraffic.DEFAULT);
    }

    @Test
    void headlessAndExternalNameSurviveTheCompactStoreAndALongExternalNameIsASkip()
        throws Exception {
      Service headless = service("quote");
      headless.getSpec().setClusterIP("None");
      apply(headless);
      Service alias = service("cart", port("http", 80, "TCP"));
      alias.getSpec().setType("ExternalName");
      alias.getSpec().setExternalName("db.example.com");
      apply(alias);
      Service tooLong = service("long");
      tooLong.getSpec().setType("ExternalName");
      tooLong.getSpec().setExternalName("a".repeat(254));
      apply(tooLong);
      Service plain = service("plain", port("http", 80, "TCP"));
      plain.getSpec().setClusterIP("10.96.0.10");
      apply(plain);
      apply(externalName("markup", "<script>alert(1)</script>"));
      Generation<Service> first = synced(1, 5);

      sink.replaced(null, first);

      assertThat(ports.trafficOf(QUOTE)).isEqualTo(ServiceTraffic.of(null, false, true, null));
      assertThat(ports.trafficOf(CART))
          .isEqualTo(ServiceTraffic.of(null, false, false, "db.example.com"));
      assertThat(ports.externalNameSkipOf(CART)).isEmpty();
      ServiceKey longKey = new ServiceKey("shop", "long");
      assertThat(ports.trafficOf(longKey)).isSameAs(ServiceTraffic.DEFAULT);
      assertThat(ports.externalNameSkipOf(longKey))
          .hasValueSatisfying(
              skip -> {
                assertThat(skip.reason())
                    .isEqualTo(dev.routesync.kube.translate.SkipReason.INVALID_EXTERNAL_NAME);
                assertThat(skip.object()).isEqualTo("Service shop/long");
                assertThat(skip.resourceVersion()).isNotNull();
              });
      assertThat(ports.trafficOf(new ServiceKey("shop", "plain"))).isSameAs(ServiceTraffic.DEFAULT);
      ServiceKey markup = new ServiceKey("shop", "markup");
      assertThat(ports.trafficOf(markup)).isSameAs(ServiceTraffic.DEFAULT);
      assertThat(ports.externalNameSkipOf(markup))
          .hasValueSatisfying(
              skip -> {
                assertThat(skip.reason())
                    .isEqualTo(dev.routesync.kube.translate.SkipReason.INVALID_EXTERNAL_NAME);
                assertThat(skip.detail()).contains("not a DNS name").doesNotContain("<script>");
              });
    }

    @Test
    void aServiceWhosePortsWereCutIsOneSkipOfItsVersion() throws Exception {
      ServicePortBuilder[] declared =
          IntStream.range(0, 1_100)
              .mapToObj(i -> port(String.format("p%04d", i), 10_000 + i, "TCP"))
              .toArray(ServicePortBuilder[]::new);
      apply(service("quote", declared));
      apply(service("cart", port("http", 80, "TCP")));

      sink.replaced(null, synced(1, 2));

      assertThat(ports.portsOf(QUOTE)).hasSize(TableLimits.MAX_PORTS);
      assertThat(ports.portsSkipOf(QUOTE))
          .hasValueSatisfying(
              skip -> {
                assertThat(skip.reason())
                    .isEqualTo(dev.routesync.kube.translate.SkipReason.OVER_STATE_LIMITS);
                assertThat(skip.object()).isEqualTo("Service shop/quote");
                assertThat(skip.resourceVersion()).isNotNull();
                assertThat(skip.detail()).contains("1,100 ports", "first 1,024 by name kept");
              });
      assertThat(ports.portsSkipOf(CART)).isEmpty();
    }

    @Test
    void theWatchHoldsEachServiceCompactAndARelistKeepsTheServedInstance() throws Exception {
      // As kubectl apply leaves it: last-applied annotation, managedFields, labels, cluster IPs.
      Service applied = ApiServerServices.decoded(1);
      applied.getMetadata().setResourceVersion(null);
      applied.getMetadata().setUid(null);
      apply(applied);
      ResourceSpec<Service> spec =
          ServicePorts.spec(
              cluster.client(), WatchSettings.of(List.of(), "mesh-managed=true"), ports);
      Generation<Service> first = synced(1, 1, spec);
      sink.replaced(null, first);

      Service held = first.objects().get(0);
      assertThat(held.getMetadata().getAnnotations()).isEmpty();
      assertThat(held.getMetadata().getLabels()).isEmpty();
      assertThat(held.getMetadata().getManagedFields()).isEmpty();
      assertThat(held.getSpec().getClusterIPs()).isEmpty();
      assertThat(held.getStatus()).isNull();
      assertThat(ports.portsOf(new ServiceKey("shop-001", "checkout-00001")))
          .containsExactly(new Port("grpc", 9090, "TCP"), new Port("http", 80, "TCP"));

      Generation<Service> relisted = synced(2, 1, spec);

      assertThat(relisted.objects()).singleElement().isSameAs(held);
    }

    @Test
    void theServicesAreListedInPages() throws Exception {
      int services = (int) ServicePorts.LIST_PAGE + 20;
      for (int i = 0; i < services; i++) {
        cluster.apply(service("svc-" + i, port("http", 80, "TCP")));
      }

      synced(1, services);

      assertThat(cluster.continuedListPages()).as("the second page, from a continue token").isOne();
    }

    @Test
    void anEventCarriesTheStoredCompactInstance() throws Exception {
      // What lets the drift detector hold the store's instances: fabric8 notifies with the very
      // object it put in the store, which the store compacted in place.
      Service applied = ApiServerServices.decoded(2);
      applied.getMetadata().setResourceVersion(null);
      applied.getMetadata().setUid(null);
      apply(applied);
      Generation<Service> generation = synced(1, 1);
      applied.getSpec().getPorts().get(0).setName("web");

      apply(applied);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> events.stream().anyMatch(e -> e.type() == WatchEvent.Type.UPDATED));
      Service updated =
          events.stream()
              .filter(e -> e.type() == WatchEvent.Type.UPDATED)
              .findFirst()
              .orElseThrow()
              .object();
      assertThat(updated.getMetadata().getAnnotations()).isEmpty();
      assertThat(updated.getSpec().getPorts().get(0).getName()).isEqualTo("web");
      assertThat(generation.objects()).singleElement().isSameAs(updated);
    }
  }
}
