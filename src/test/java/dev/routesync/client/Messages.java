package dev.routesync.client;

import dev.routesync.api.v1.Endpoint;
import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.Port;
import dev.routesync.api.v1.PortCount;
import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import java.util.List;

/** Hand-built Registry messages shared by the formatter and fake-agent tests. */
final class Messages {

  static final Port HTTP = port("http", 8080, "TCP");
  static final Port ADMIN = port("admin", 9090, "TCP");

  private Messages() {}

  static Port port(String name, int number, String protocol) {
    return Port.newBuilder().setName(name).setPort(number).setProtocol(protocol).build();
  }

  static Endpoint ready(String ip, String node, String zone, String pod, Port... ports) {
    return Endpoint.newBuilder()
        .setIp(ip)
        .addAllPorts(List.of(ports))
        .setNode(node)
        .setZone(zone)
        .setPod(pod)
        .setReady(true)
        .setServing(true)
        .build();
  }

  static Endpoint terminating(String ip, Port... ports) {
    return Endpoint.newBuilder()
        .setIp(ip)
        .addAllPorts(List.of(ports))
        .setServing(true)
        .setTerminating(true)
        .build();
  }

  static ServiceEndpoints service(
      String namespace, String name, long version, Endpoint... endpoints) {
    return ServiceEndpoints.newBuilder()
        .setNamespace(namespace)
        .setName(name)
        .setVersion(version)
        .addAllEndpoints(List.of(endpoints))
        .build();
  }

  static ServiceRef ref(String namespace, String name) {
    return ServiceRef.newBuilder().setNamespace(namespace).setName(name).build();
  }

  static PortCount count(String name, int port, int ready, int listed) {
    return PortCount.newBuilder()
        .setName(name)
        .setPort(port)
        .setProtocol("TCP")
        .setReady(ready)
        .setListed(listed)
        .build();
  }

  /**
   * shop/cart with three endpoints (one terminating) serving both its ports, and billing/ledger-api
   * with none.
   */
  static ServiceEndpoints cart() {
    return service(
            "shop",
            "cart",
            40,
            ready("10.1.0.11", "node-a", "zone-a", "cart-1", HTTP, ADMIN),
            ready("10.1.0.12", "node-b", "zone-b", "cart-2", HTTP, ADMIN),
            terminating("10.1.0.9", HTTP))
        .toBuilder()
        .addPortCounts(count("admin", 9090, 2, 2))
        .addPortCounts(count("http", 80, 2, 2))
        .build();
  }

  static ListResponse list() {
    return ListResponse.newBuilder()
        .setVersion(42)
        .addServices(service("billing", "ledger-api", 7))
        .addServices(cart())
        .build();
  }

  static WatchEvent snapshot() {
    return WatchEvent.newBuilder()
        .setVersion(42)
        .setReset(true)
        .addAllUpserted(list().getServicesList())
        .build();
  }

  static WatchEvent change() {
    return WatchEvent.newBuilder()
        .setVersion(43)
        .addUpserted(
            service("shop", "cart", 43, ready("10.1.0.11", "node-a", "zone-a", "cart-1", HTTP)))
        .addRemoved(ref("billing", "ledger-api"))
        .build();
  }
}
