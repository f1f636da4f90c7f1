package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import tools.jackson.core.JsonParser;

/**
 * {@code v1} Pods, only the fields the agent reads of its node's pods: the metadata, {@code
 * spec.nodeName}, each container's and init container's name, restart policy and ports, and {@code
 * status.phase}, its conditions' type and status, and its addresses. Everything else (volumes,
 * images, probes, environment, resources, container statuses, timestamps) is skipped unread.
 *
 * <p>Unlike the endpoint kinds, this is not every field of the schema: a Pod is many times the size
 * of what the drift detector reads, and the node's Pod watch took about a third of the agent's CPU
 * in a rollout on a real API server when fabric8 bound all of it (Jackson data binding and TLS
 * decryption of the Pods' JSON). A value of a wrong type in a field that is kept still hands the
 * document to fabric8; one in a skipped field is not looked at.
 */
final class PodReader {

  private PodReader() {}

  static boolean field(Pod pod, String name, JsonParser value) {
    switch (name) {
      case "apiVersion" -> pod.setApiVersion(Tokens.string(value));
      case "kind" -> pod.setKind(Tokens.string(value));
      case "metadata" -> pod.setMetadata(MetaReader.objectMeta(value));
      case "spec" -> pod.setSpec(spec(value));
      case "status" -> pod.setStatus(status(value));
      default -> {
        return false;
      }
    }
    return true;
  }

  private static PodSpec spec(JsonParser parser) {
    PodSpec spec = new PodSpec();
    return Tokens.object(
        parser,
        spec,
        (name, value) -> {
          switch (name) {
            case "nodeName" -> spec.setNodeName(Tokens.string(value));
            case "containers" -> spec.setContainers(Tokens.list(value, PodReader::container));
            case "initContainers" ->
                spec.setInitContainers(Tokens.list(value, PodReader::container));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static Container container(JsonParser parser) {
    Container container = new Container();
    return Tokens.object(
        parser,
        container,
        (name, value) -> {
          switch (name) {
            case "name" -> container.setName(Tokens.string(value));
            case "restartPolicy" -> container.setRestartPolicy(Tokens.string(value));
            case "ports" -> container.setPorts(Tokens.list(value, PodReader::port));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static ContainerPort port(JsonParser parser) {
    ContainerPort port = new ContainerPort();
    return Tokens.object(
        parser,
        port,
        (name, value) -> {
          switch (name) {
            case "name" -> port.setName(Tokens.string(value));
            case "containerPort" -> port.setContainerPort(Tokens.integer(value));
            case "protocol" -> port.setProtocol(Tokens.string(value));
            case "hostPort" -> port.setHostPort(Tokens.integer(value));
            case "hostIP" -> port.setHostIP(Tokens.string(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static PodStatus status(JsonParser parser) {
    PodStatus status = new PodStatus();
    return Tokens.object(
        parser,
        status,
        (name, value) -> {
          switch (name) {
            case "phase" -> status.setPhase(Tokens.string(value));
            case "conditions" -> status.setConditions(Tokens.list(value, PodReader::condition));
            case "podIP" -> status.setPodIP(Tokens.string(value));
            case "podIPs" -> status.setPodIPs(Tokens.list(value, PodReader::podIp));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static PodCondition condition(JsonParser parser) {
    PodCondition condition = new PodCondition();
    return Tokens.object(
        parser,
        condition,
        (name, value) -> {
          switch (name) {
            case "type" -> condition.setType(Tokens.string(value));
            case "status" -> condition.setStatus(Tokens.string(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static PodIP podIp(JsonParser parser) {
    PodIP ip = new PodIP();
    return Tokens.object(
        parser,
        ip,
        (name, value) -> {
          if (!name.equals("ip")) {
            return false;
          }
          ip.setIp(Tokens.string(value));
          return true;
        });
  }
}
