package dev.routesync.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.kube.translate.SliceTranslator;
import dev.routesync.table.Endpoint;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableWriter;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A state file written by the agent before {@link Endpoint} became compact (IPv4 as text in a
 * record) loads into the new representation, and the restored table equals a fresh translation of
 * the same slices: an upgraded agent that warm-starts from the old file publishes no new version,
 * except for a dual-stack Service, whose pods' two endpoints the newer agent makes one.
 *
 * <p>The fixture {@code v1-text-endpoints.rstb} was written by {@link #writeFixture} on the commit
 * before the change (run with {@code -Droutesync.writeStateFixture=<path>}); it must not be
 * regenerated with newer code, or it would stop testing the upgrade.
 */
class StateFileUpgradeTest {

  private static final String FIXTURE = "/dev/routesync/state/v1-text-endpoints.rstb";
  private static final Instant WRITTEN = Instant.parse("2026-12-01T20:00:00Z");

  /**
   * Services that exercise every shape: IPv4 whose text order differs from numeric order, IPv6
   * (alone, and in a dual-stack Service mixed with IPv4), pod names of every form the new
   * representation splits differently, absent zone, node and pod, and every condition.
   */
  static Map<ServiceKey, List<EndpointSlice>> cluster() {
    Map<ServiceKey, List<EndpointSlice>> slices = new LinkedHashMap<>();
    slices.put(
        new ServiceKey("shop", "checkout"),
        List.of(
            slice(
                "shop",
                "checkout",
                "IPv4",
                endpoint("10.0.0.9", "checkout-7d9f8b6c5d-x2x7q", "z1", "node-a", true),
                endpoint("10.0.0.10", "checkout-7d9f8b6c5d-abcdefgh", "z1", "node-a", true),
                endpoint("10.0.0.100", "checkout-7d9f8b6c5d-abcdefghi", "z2", "node-b", true),
                endpoint("9.255.255.255", "web-0", null, null, true),
                endpoint("100.64.0.1", "plainname", "z2", null, true),
                endpoint("1.2.3.4", "trailing-", null, "node-c", true),
                endpoint("0.0.0.0", "", null, null, true),
                endpoint("255.255.255.255", "caf\u00e9-7d9f8b6c5d-\u00e9t\u00e9", "z1", null, true),
                endpoint("192.168.1.1", null, "z1", "node-a", true),
                endpoint("10.1.0.1", "-lead", "z1", "node-a", true))));
    slices.put(
        new ServiceKey("shop", "dual"),
        List.of(
            slice(
                "shop",
                "dual-v4",
                "IPv4",
                endpoint("10.0.0.1", "dual-5f6d7c8b9a-aaaaa", "z1", "node-a", true),
                endpoint("1.0.0.1", "dual-5f6d7c8b9a-bbbbb", "z1", "node-a", true),
                endpoint("2.0.0.1", "dual-5f6d7c8b9a-ccccc", "z1", "node-a", true)),
            slice(
                "shop",
                "dual-v6",
                "IPv6",
                endpoint("FD00:0:0:0:0:0:0:1", "dual-5f6d7c8b9a-aaaaa", "z1", "node-a", true),
                endpoint("1::1", "dual-5f6d7c8b9a-bbbbb", "z1", "node-a", true),
                endpoint("2001:db8::ff00:42:8329", "dual-5f6d7c8b9a-ccccc", "z1", "node-a", true),
                endpoint("100::", "dual-5f6d7c8b9a-ddddd", "z1", "node-a", true))));
    slices.put(
        new ServiceKey("shop", "draining"),
        List.of(
            slice(
                "shop",
                "draining",
                "IPv4",
                endpoint("10.2.0.1", "draining-abc-1", "z1", "node-a", false),
                endpoint("10.2.0.2", "draining-abc-2", "z1", "node-a", false))));
    return slices;
  }

  @Test
  void aFileFromTheTextRecordLoadsIntoTheCompactFormAndEqualsAFreshTranslation() throws Exception {
    byte[] file;
    try (InputStream in = StateFileUpgradeTest.class.getResourceAsStream(FIXTURE)) {
      assertThat(in).as(FIXTURE).isNotNull();
      file = in.readAllBytes();
    }
    RoutingTable restored =
        TableCodec.decode(file, WRITTEN.plusSeconds(1), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY)
            .table();
    RoutingTable fresh = translated().current();

    assertThat(restored.serviceCount()).isEqualTo(3);
    assertThat(restored.endpointCount()).isEqualTo(19);
    // The dual-stack Service's three pods listed in both families are one endpoint each now.
    ServiceKey dual = new ServiceKey("shop", "dual");
    assertThat(fresh.endpointCount()).isEqualTo(16);
    assertThat(fresh.get(dual).orElseThrow().endpoints())
        .flatExtracting(Endpoint::addresses)
        .containsExactlyInAnyOrderElementsOf(
            restored.get(dual).orElseThrow().endpoints().stream().map(Endpoint::ip).toList());
    for (var service : fresh.services()) {
      if (service.key().equals(dual)) {
        continue;
      }
      var old = restored.get(service.key()).orElseThrow();
      assertThat(old.endpoints()).containsExactlyElementsOf(service.endpoints());
      assertThat(old.servicePorts()).isEqualTo(service.servicePorts());
      for (int i = 0; i < old.endpoints().size(); i++) {
        assertThat(old.endpoints().get(i).hashCode())
            .isEqualTo(service.endpoints().get(i).hashCode());
      }
    }
    // The upgraded agent applies its fresh translation to the restored table: only the
    // dual-stack Service changed (its pairs became one endpoint each), in one new version.
    TableWriter writer = new TableWriter(Clock.fixed(WRITTEN, ZoneOffset.UTC), restored);
    RoutingTable upgraded = writer.publish(states(), List.of());
    assertThat(upgraded.version()).isEqualTo(restored.version() + 1);
    assertThat(upgraded.changedSince(restored.version())).contains(java.util.Set.of(dual));
    // It writes the current format (3: several addresses per endpoint, headless and external
    // names), which reads back the same.
    byte[] rewritten = TableCodec.encode(upgraded, WRITTEN, Optional.empty());
    assertThat(java.nio.ByteBuffer.wrap(file).getShort(4)).isEqualTo((short) 1);
    assertThat(java.nio.ByteBuffer.wrap(rewritten).getShort(4))
        .isEqualTo(TableCodec.FORMAT_VERSION)
        .isEqualTo((short) 3);
    RoutingTable again =
        TableCodec.decode(
                rewritten, WRITTEN.plusSeconds(1), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY)
            .table();
    assertThat(List.copyOf(again.services())).isEqualTo(List.copyOf(upgraded.services()));
  }

  /** Writes the fixture; run once, on the representation being upgraded from. */
  @Test
  @EnabledIfSystemProperty(named = "routesync.writeStateFixture", matches = ".+")
  void writeFixture() throws IOException {
    RoutingTable table = translated().current();
    Files.write(
        Path.of(System.getProperty("routesync.writeStateFixture")),
        TableCodec.encode(table, WRITTEN, Optional.empty()));
  }

  private static TableWriter translated() {
    TableWriter writer =
        new TableWriter(
            Clock.fixed(WRITTEN, ZoneOffset.UTC), RoutingTable.DEFAULT_DELTA_LOG_CAPACITY);
    writer.publish(states(), List.of());
    return writer;
  }

  private static Map<ServiceKey, ServiceState> states() {
    Map<ServiceKey, ServiceState> states = new LinkedHashMap<>();
    cluster()
        .forEach(
            (key, slices) ->
                states.put(key, ServiceState.of(SliceTranslator.translate(slices).endpoints())));
    return states;
  }

  private static EndpointSlice slice(
      String namespace,
      String name,
      String addressType,
      io.fabric8.kubernetes.api.model.discovery.v1.Endpoint... endpoints) {
    String service = name.startsWith("dual") ? "dual" : name;
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name + "-abcde")
        .addToLabels(SliceTranslator.SERVICE_NAME_LABEL, service)
        .endMetadata()
        .withAddressType(addressType)
        .withPorts(
            new EndpointPortBuilder().withName("http").withPort(8080).withProtocol("TCP").build(),
            new EndpointPortBuilder()
                .withName("metrics")
                .withPort(9090)
                .withProtocol("TCP")
                .build())
        .withEndpoints(new ArrayList<>(List.of(endpoints)))
        .build();
  }

  private static io.fabric8.kubernetes.api.model.discovery.v1.Endpoint endpoint(
      String ip, String pod, String zone, String node, boolean ready) {
    EndpointBuilder builder =
        new EndpointBuilder()
            .withAddresses(ip)
            .withZone(zone)
            .withNodeName(node)
            .withNewConditions()
            .withReady(ready)
            .withServing(true)
            .withTerminating(!ready)
            .endConditions();
    if (pod != null) {
      builder.withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withName(pod).build());
    }
    return builder.build();
  }
}
