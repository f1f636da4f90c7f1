package dev.routesync.bootstrap;

import dev.routesync.errors.Causes;
import dev.routesync.kube.NodeLabels;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * Reads this node's zone from its {@value Locality#ZONE_LABEL} label: one GET of the Node (RBAC:
 * {@code get} on {@code nodes}). A failure is an answer too, with the reason in words, because the
 * bootstrap is still useful without a zone and the caller only warns.
 */
final class ZoneLookup {

  /**
   * What the lookup found.
   *
   * @param locality the zone, or none
   * @param problem why there is no zone, when there is none
   */
  record Answer(Locality locality, Optional<String> problem) {
    Answer {
      Objects.requireNonNull(locality, "locality");
      Objects.requireNonNull(problem, "problem");
    }

    static Answer found(String zone) {
      return new Answer(Locality.zone(zone), Optional.empty());
    }

    static Answer none(String problem) {
      return new Answer(Locality.unknown(), Optional.of(problem));
    }
  }

  private ZoneLookup() {}

  /** The zone of node {@code nodeName}; the client's own timeouts bound the call. */
  static Answer of(KubernetesClient client, String nodeName) {
    NodeLabels.Answer read = NodeLabels.read(client, nodeName);
    if (read.failure().isPresent()) {
      return Answer.none(failure(client, nodeName, read.failure().get()));
    }
    if (!read.found()) {
      return Answer.none("node " + nodeName + " not found");
    }
    if (read.zone().isEmpty()) {
      return Answer.none("node " + nodeName + " has no " + Locality.ZONE_LABEL + " label");
    }
    try {
      return Answer.found(read.zone().get());
    } catch (IllegalArgumentException e) { // an API server would not store it; say so anyway
      return Answer.none("node " + nodeName + ": " + e.getMessage());
    }
  }

  private static String failure(
      KubernetesClient client, String nodeName, KubernetesClientException e) {
    String server = String.valueOf(client.getMasterUrl());
    return switch (e.getCode()) {
      case 401 -> "the API server at " + server + " refused the credentials (401)";
      case 403 -> "forbidden to get node " + nodeName + " (its service account needs get on nodes)";
      default -> {
        if (e.getCode() > 0) {
          yield "the API server at " + server + " answered " + e.getCode() + ": " + e.getMessage();
        }
        yield "the API server at " + server + " " + transportProblem(e);
      }
    };
  }

  private static String transportProblem(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConnectException) {
        return "is unreachable: connection refused";
      }
      if (cause instanceof InterruptedIOException || cause instanceof TimeoutException) {
        return "did not answer in time (--request-timeout)";
      }
    }
    return "is unreachable: " + Causes.root(e).getMessage();
  }
}
