package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointHints;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.ForNode;
import io.fabric8.kubernetes.api.model.discovery.v1.ForZone;
import tools.jackson.core.JsonParser;

/** {@code discovery.k8s.io/v1} EndpointSlices, every field of the schema. */
final class SliceReader {

  private SliceReader() {}

  static boolean field(EndpointSlice slice, String name, JsonParser value) {
    switch (name) {
      case "apiVersion" -> slice.setApiVersion(Tokens.string(value));
      case "kind" -> slice.setKind(Tokens.string(value));
      case "metadata" -> slice.setMetadata(MetaReader.objectMeta(value));
      case "addressType" -> slice.setAddressType(Tokens.string(value));
      case "endpoints" -> slice.setEndpoints(Tokens.list(value, SliceReader::endpoint));
      case "ports" -> slice.setPorts(Tokens.list(value, SliceReader::port));
      default -> {
        return false;
      }
    }
    return true;
  }

  private static Endpoint endpoint(JsonParser parser) {
    Endpoint endpoint = new Endpoint();
    return Tokens.object(
        parser,
        endpoint,
        (name, value) -> {
          switch (name) {
            case "addresses" -> endpoint.setAddresses(Tokens.strings(value));
            case "conditions" -> endpoint.setConditions(conditions(value));
            case "nodeName" -> endpoint.setNodeName(Tokens.string(value));
            case "zone" -> endpoint.setZone(Tokens.string(value));
            case "hints" -> endpoint.setHints(hints(value));
            case "targetRef" -> endpoint.setTargetRef(MetaReader.objectReference(value));
            case "hostname" -> endpoint.setHostname(Tokens.string(value));
            case "deprecatedTopology" -> endpoint.setDeprecatedTopology(Tokens.stringMap(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static EndpointConditions conditions(JsonParser parser) {
    EndpointConditions conditions = new EndpointConditions();
    return Tokens.object(
        parser,
        conditions,
        (name, value) -> {
          switch (name) {
            case "ready" -> conditions.setReady(Tokens.bool(value));
            case "serving" -> conditions.setServing(Tokens.bool(value));
            case "terminating" -> conditions.setTerminating(Tokens.bool(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static EndpointHints hints(JsonParser parser) {
    EndpointHints hints = new EndpointHints();
    return Tokens.object(
        parser,
        hints,
        (name, value) -> {
          switch (name) {
            case "forZones" -> hints.setForZones(Tokens.list(value, SliceReader::forZone));
            case "forNodes" -> hints.setForNodes(Tokens.list(value, SliceReader::forNode));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static ForZone forZone(JsonParser parser) {
    ForZone zone = new ForZone();
    return Tokens.object(parser, zone, (name, value) -> named(name, value, zone::setName));
  }

  private static ForNode forNode(JsonParser parser) {
    ForNode node = new ForNode();
    return Tokens.object(parser, node, (name, value) -> named(name, value, node::setName));
  }

  private static boolean named(
      String name, JsonParser value, java.util.function.Consumer<String> setName) {
    if (!name.equals("name")) {
      return false;
    }
    setName.accept(Tokens.string(value));
    return true;
  }

  private static EndpointPort port(JsonParser parser) {
    EndpointPort port = new EndpointPort();
    return Tokens.object(
        parser,
        port,
        (name, value) -> {
          switch (name) {
            case "name" -> port.setName(Tokens.string(value));
            case "port" -> port.setPort(Tokens.integer(value));
            case "protocol" -> port.setProtocol(Tokens.string(value));
            case "appProtocol" -> port.setAppProtocol(Tokens.string(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }
}
