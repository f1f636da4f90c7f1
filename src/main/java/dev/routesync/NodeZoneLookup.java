package dev.routesync;

import dev.routesync.kube.NodeLabels;
import dev.routesync.kube.NodeTopology;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;

/**
 * The agent part that reads this node's zone from its Node's label, when no --zone was given: at
 * start, and again every {@link #RETRY} while the API server cannot answer. The read blocks, so it
 * runs on a worker; what it learned is handed to the topology on the sync context.
 */
final class NodeZoneLookup implements AgentPart {

  /** How often the Node is read again while the API server cannot answer. */
  private static final Duration RETRY = Duration.ofSeconds(30);

  private final Vertx vertx;
  private final Context syncContext;
  private final KubernetesClient client;
  private final String nodeName;
  private final NodeTopology topology;
  private volatile boolean stopped;

  NodeZoneLookup(
      Vertx vertx,
      Context syncContext,
      KubernetesClient client,
      String nodeName,
      NodeTopology topology) {
    this.vertx = vertx;
    this.syncContext = syncContext;
    this.client = client;
    this.nodeName = nodeName;
    this.topology = topology;
  }

  @Override
  public String name() {
    return "zone lookup";
  }

  @Override
  public Future<Void> start() {
    lookUp();
    return Future.succeededFuture();
  }

  /** Its retries end by themselves: none is scheduled once stopped. */
  @Override
  public Future<Void> stop() {
    stopped = true;
    return Future.succeededFuture();
  }

  private void lookUp() {
    vertx
        .executeBlocking(() -> NodeLabels.read(client, nodeName), false)
        .onComplete(
            answer ->
                syncContext.runOnContext(
                    v -> {
                      boolean again = answer.succeeded() ? topology.learned(answer.result()) : true;
                      if (again && !stopped) {
                        vertx.setTimer(RETRY.toMillis(), t -> lookUp());
                      }
                    }));
  }
}
