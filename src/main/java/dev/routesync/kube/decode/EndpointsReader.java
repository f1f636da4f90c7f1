package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import tools.jackson.core.JsonParser;

/** Legacy {@code v1} Endpoints, every field of the schema. */
final class EndpointsReader {

  private EndpointsReader() {}

  static boolean field(Endpoints endpoints, String name, JsonParser value) {
    switch (name) {
      case "apiVersion" -> endpoints.setApiVersion(Tokens.string(value));
      case "kind" -> endpoints.setKind(Tokens.string(value));
      case "metadata" -> endpoints.setMetadata(MetaReader.objectMeta(value));
      case "subsets" -> endpoints.setSubsets(Tokens.list(value, EndpointsReader::subset));
      default -> {
        return false;
      }
    }
    return true;
  }

  private static EndpointSubset subset(JsonParser parser) {
    EndpointSubset subset = new EndpointSubset();
    return Tokens.object(
        parser,
        subset,
        (name, value) -> {
          switch (name) {
            case "addresses" -> subset.setAddresses(Tokens.list(value, EndpointsReader::address));
            case "notReadyAddresses" ->
                subset.setNotReadyAddresses(Tokens.list(value, EndpointsReader::address));
            case "ports" -> subset.setPorts(Tokens.list(value, EndpointsReader::port));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static EndpointAddress address(JsonParser parser) {
    EndpointAddress address = new EndpointAddress();
    return Tokens.object(
        parser,
        address,
        (name, value) -> {
          switch (name) {
            case "ip" -> address.setIp(Tokens.string(value));
            case "nodeName" -> address.setNodeName(Tokens.string(value));
            case "hostname" -> address.setHostname(Tokens.string(value));
            case "targetRef" -> address.setTargetRef(MetaReader.objectReference(value));
            default -> {
              return false;
            }
          }
          return true;
        });
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
