package dev.routesync.kube.decode;

import java.util.List;
import java.util.Random;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * EndpointSlices and Endpoints as JSON, in every shape their schema allows: each optional field
 * present, absent or null, fields in the API server's order or fabric8's, {@code managedFields},
 * and fields no schema knows at every level.
 */
final class RandomDocuments {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final Random random;

  RandomDocuments(Random random) {
    this.random = random;
  }

  ObjectNode slice(boolean withType) {
    ObjectNode slice = NODES.objectNode();
    if (withType) {
      typeMeta(slice, "EndpointSlice", "discovery.k8s.io/v1");
    }
    slice.set("metadata", metadata("kubernetes.io/service-name"));
    maybe(slice, "addressType", () -> slice.put("addressType", pick("IPv4", "IPv6", "FQDN")));
    maybe(
        slice,
        "endpoints",
        () -> {
          ArrayNode endpoints = slice.putArray("endpoints");
          for (int n = random.nextInt(4); n > 0; n--) {
            endpoints.add(sliceEndpoint());
          }
        });
    maybe(slice, "ports", () -> ports(slice.putArray("ports")));
    unknown(slice);
    return slice;
  }

  ObjectNode endpoints(boolean withType) {
    ObjectNode endpoints = NODES.objectNode();
    if (withType) {
      typeMeta(endpoints, "Endpoints", "v1");
    }
    endpoints.set("metadata", metadata("service-label"));
    maybe(
        endpoints,
        "subsets",
        () -> {
          ArrayNode subsets = endpoints.putArray("subsets");
          for (int n = random.nextInt(3); n > 0; n--) {
            ObjectNode subset = subsets.addObject();
            maybe(subset, "addresses", () -> addresses(subset.putArray("addresses")));
            maybe(
                subset, "notReadyAddresses", () -> addresses(subset.putArray("notReadyAddresses")));
            maybe(subset, "ports", () -> ports(subset.putArray("ports")));
            unknown(subset);
          }
        });
    unknown(endpoints);
    return endpoints;
  }

  private void typeMeta(ObjectNode object, String kind, String apiVersion) {
    // The API server writes kind first, fabric8's model apiVersion first.
    if (random.nextBoolean()) {
      object.put("kind", kind);
      object.put("apiVersion", apiVersion);
    } else {
      object.put("apiVersion", apiVersion);
      object.put("kind", kind);
    }
  }

  private ObjectNode metadata(String serviceLabel) {
    ObjectNode meta = NODES.objectNode();
    meta.put("name", "obj-" + random.nextInt(1000));
    meta.put("namespace", pick("shop", "default", "kube-system"));
    maybe(meta, "uid", () -> meta.put("uid", "uid-" + random.nextInt()));
    meta.put("resourceVersion", String.valueOf(random.nextInt(1_000_000)));
    maybe(meta, "generation", () -> meta.put("generation", random.nextInt(50)));
    maybe(meta, "creationTimestamp", () -> meta.put("creationTimestamp", "2026-12-06T16:00:00Z"));
    maybe(meta, "generateName", () -> meta.put("generateName", "checkout-"));
    maybe(meta, "selfLink", () -> meta.put("selfLink", "/apis/x"));
    if (random.nextInt(5) == 0) {
      meta.put("deletionTimestamp", "2026-12-06T16:01:00Z");
      meta.put("deletionGracePeriodSeconds", 30);
      meta.putArray("finalizers").add("example.com/hold");
    }
    maybe(
        meta,
        "labels",
        () -> {
          ObjectNode labels = meta.putObject("labels");
          labels.put(serviceLabel, "checkout");
          labels.put("mesh-managed", "true");
          maybe(labels, "x", () -> labels.put("endpointslice.kubernetes.io/managed-by", "c"));
        });
    maybe(
        meta,
        "annotations",
        () ->
            meta.putObject("annotations")
                .put("endpoints.kubernetes.io/last-change-trigger-time", "2026-12-06T16:00:00Z"));
    maybe(
        meta,
        "ownerReferences",
        () -> {
          ObjectNode owner = meta.putArray("ownerReferences").addObject();
          owner.put("apiVersion", "v1");
          owner.put("kind", "Service");
          owner.put("name", "checkout");
          owner.put("uid", "u-1");
          maybe(owner, "controller", () -> owner.put("controller", random.nextBoolean()));
          maybe(owner, "blockOwnerDeletion", () -> owner.put("blockOwnerDeletion", true));
        });
    if (random.nextBoolean()) {
      ObjectNode managed = meta.putArray("managedFields").addObject();
      managed.put("manager", "kube-controller-manager");
      managed.put("operation", "Update");
      managed.putObject("fieldsV1").putObject("f:endpoints").put("x", 1);
    }
    unknown(meta);
    return meta;
  }

  private ObjectNode sliceEndpoint() {
    ObjectNode endpoint = NODES.objectNode();
    maybe(
        endpoint,
        "addresses",
        () -> {
          ArrayNode addresses = endpoint.putArray("addresses");
          for (int n = 1 + random.nextInt(2); n > 0; n--) {
            addresses.add("10.1." + random.nextInt(256) + "." + random.nextInt(256));
          }
        });
    maybe(
        endpoint,
        "conditions",
        () -> {
          ObjectNode conditions = endpoint.putObject("conditions");
          for (String condition : List.of("ready", "serving", "terminating")) {
            maybe(conditions, condition, () -> conditions.put(condition, random.nextBoolean()));
          }
          unknown(conditions);
        });
    maybe(endpoint, "nodeName", () -> endpoint.put("nodeName", pick("node-a", "node-b")));
    maybe(endpoint, "zone", () -> endpoint.put("zone", pick("zone-a", "zone-b")));
    maybe(endpoint, "hostname", () -> endpoint.put("hostname", "pod-0"));
    maybe(
        endpoint,
        "hints",
        () -> {
          ObjectNode hints = endpoint.putObject("hints");
          maybe(hints, "forZones", () -> hints.putArray("forZones").addObject().put("name", "z"));
          maybe(hints, "forNodes", () -> hints.putArray("forNodes").addObject().put("name", "n"));
          unknown(hints);
        });
    maybe(endpoint, "targetRef", () -> endpoint.set("targetRef", targetRef()));
    maybe(
        endpoint,
        "deprecatedTopology",
        () -> endpoint.putObject("deprecatedTopology").put("kubernetes.io/hostname", "n"));
    unknown(endpoint);
    return endpoint;
  }

  private void addresses(ArrayNode addresses) {
    for (int n = random.nextInt(3); n > 0; n--) {
      ObjectNode address = addresses.addObject();
      address.put("ip", "10.2.0." + random.nextInt(256));
      maybe(address, "nodeName", () -> address.put("nodeName", "node-a"));
      maybe(address, "hostname", () -> address.put("hostname", "h"));
      maybe(address, "targetRef", () -> address.set("targetRef", targetRef()));
      unknown(address);
    }
  }

  private ObjectNode targetRef() {
    ObjectNode ref = NODES.objectNode();
    ref.put("kind", "Pod");
    ref.put("namespace", "shop");
    ref.put("name", "pod-" + random.nextInt(100));
    maybe(ref, "uid", () -> ref.put("uid", "p-" + random.nextInt()));
    maybe(ref, "apiVersion", () -> ref.put("apiVersion", "v1"));
    maybe(ref, "resourceVersion", () -> ref.put("resourceVersion", "9"));
    maybe(ref, "fieldPath", () -> ref.put("fieldPath", "spec"));
    unknown(ref);
    return ref;
  }

  private void ports(ArrayNode ports) {
    for (int n = random.nextInt(3); n > 0; n--) {
      ObjectNode port = ports.addObject();
      maybe(port, "name", () -> port.put("name", pick("http", "grpc", "")));
      maybe(port, "port", () -> port.put("port", random.nextInt(65536)));
      maybe(port, "protocol", () -> port.put("protocol", pick("TCP", "UDP", "SCTP")));
      maybe(port, "appProtocol", () -> port.put("appProtocol", "kubernetes.io/h2c"));
      unknown(port);
    }
  }

  /** Sets the field (one time in two), leaves it out, or writes it as JSON null. */
  private void maybe(ObjectNode object, String field, Runnable set) {
    int roll = random.nextInt(8);
    if (roll < 5) {
      set.run();
    } else if (roll == 5) {
      object.putNull(field);
    }
  }

  /** Now and then a field no schema knows, of any JSON type. */
  private void unknown(ObjectNode object) {
    if (random.nextInt(4) != 0) {
      return;
    }
    switch (random.nextInt(4)) {
      case 0 -> object.put("futureField", "x");
      case 1 -> object.put("futureCount", 7);
      case 2 -> object.putObject("futureObject").putArray("a").add(1).addObject().put("b", true);
      default -> object.putArray("futureList").add("y").addNull();
    }
  }

  private String pick(String... values) {
    return values[random.nextInt(values.length)];
  }
}
