package dev.routesync.e2e;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;

/** The objects the tests apply: a namespace of their own, opted-in Services, Deployments. */
final class Workloads {

  static final String OPT_IN_LABEL = "mesh-managed";

  private Workloads() {}

  /**
   * A fresh namespace, named after the test, once its default ServiceAccount exists (the
   * ServiceAccount admission plugin refuses Pods before that).
   */
  static String namespace(KubernetesClient client, String prefix) {
    return namespace(client, prefix, Duration.ofSeconds(30));
  }

  /** {@link #namespace(KubernetesClient, String)}, waiting up to {@code within} for its account. */
  static String namespace(KubernetesClient client, String prefix, Duration within) {
    String name = prefix + "-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
    Namespace namespace =
        new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build();
    client.namespaces().resource(namespace).create();
    Awaitility.await()
        .atMost(within)
        .ignoreExceptions()
        .until(() -> client.serviceAccounts().inNamespace(name).withName("default").get() != null);
    return name;
  }

  /**
   * Waits until the controllers serve again after a control-plane restart: a restarted API server
   * answers the controller manager's first watches 403 until its authorizer has synced (seen on a
   * loaded machine), and client-go then backs off, so a new namespace may wait over 30 s for its
   * ServiceAccount. A test that restarts a component waits here, so the next test starts on a
   * working cluster whatever the order.
   */
  static void awaitControllersServing(KubernetesClient client) {
    Duration within = Duration.ofMinutes(3);
    String probe = namespace(client, "controllers-up", within);
    try {
      // Every informer a test relies on, end to end: the Deployment and ReplicaSet controllers
      // make the Pod, the scheduler binds it, the stand-in kubelet makes it Ready and the
      // EndpointSlice controller lists it. Each reflector backs off on its own, so the
      // ServiceAccount above proves only one of them.
      client.services().resource(service(probe, "probe")).create();
      client.apps().deployments().resource(deployment(probe, "probe", 1, "http")).create();
      awaitRolledOut(client, probe, "probe", within);
      Awaitility.await()
          .atMost(within)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                var ready = ReadySets.fromPods(client, probe, "probe", 8080);
                return !ready.isEmpty()
                    && ReadySets.fromSlices(ReadySets.slices(client, probe, "probe")).equals(ready);
              });
    } finally {
      deleteNamespace(client, probe);
    }
  }

  /**
   * Deletes the namespace without waiting, then its Pods with no grace period, so Pods left to
   * drain (a preStop sleep) hold neither the namespace nor the control plane's resources for
   * minutes. Pods go after the namespace, which then refuses new ones: no controller replaces them.
   */
  static void deleteNamespace(KubernetesClient client, String name) {
    client.namespaces().withName(name).delete();
    client.pods().inNamespace(name).withGracePeriod(0).delete();
  }

  /** An opted-in Service: port 80 to the pods' named port {@code http}, selecting app=NAME. */
  static Service service(String namespace, String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(Map.of(OPT_IN_LABEL, "true"))
        .endMetadata()
        .withNewSpec()
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withTargetPort(new IntOrString("http"))
        .endPort()
        .endSpec()
        .build();
  }

  /**
   * A Deployment of app=NAME whose container declares port {@code portName} 8080, rolling with
   * {@code maxSurge: 25%}, {@code maxUnavailable: 0}.
   */
  static Deployment deployment(String namespace, String name, int replicas, String portName) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .withMatchLabels(Map.of("app", name))
        .endSelector()
        .withNewStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxSurge(new IntOrString("25%"))
        .withMaxUnavailable(new IntOrString(0))
        .endRollingUpdate()
        .endStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of("app", name))
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(30L)
        .addNewContainer()
        .withName("app")
        .withImage("registry.example/" + name + ":1")
        .addNewPort()
        .withName(portName)
        .withContainerPort(8080)
        .withProtocol("TCP")
        .endPort()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /**
   * The Deployment with its pods pinned to {@code node} (a nodeSelector on the hostname label): an
   * agent's drift detector only sees the pods of its own node.
   */
  static Deployment onNode(Deployment deployment, String node) {
    return new DeploymentBuilder(deployment)
        .editSpec()
        .editTemplate()
        .editSpec()
        .withNodeSelector(Map.of("kubernetes.io/hostname", node))
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /**
   * Waits until the Deployment's rollout is complete: every replica updated, ready and available,
   * and no Pod of it left (old, surplus or terminating).
   */
  static void awaitRolledOut(
      KubernetesClient client, String namespace, String name, Duration budget) {
    Awaitility.await()
        .atMost(budget)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              Deployment d =
                  client.apps().deployments().inNamespace(namespace).withName(name).get();
              int want = d.getSpec().getReplicas();
              var status = d.getStatus();
              boolean done =
                  status != null
                      && d.getMetadata().getGeneration().equals(status.getObservedGeneration())
                      && orZero(status.getUpdatedReplicas()) == want
                      && orZero(status.getReadyReplicas()) == want
                      && orZero(status.getAvailableReplicas()) == want
                      && orZero(status.getReplicas()) == want;
              return done
                  && client
                          .pods()
                          .inNamespace(namespace)
                          .withLabel("app", name)
                          .list()
                          .getItems()
                          .size()
                      == want;
            });
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
