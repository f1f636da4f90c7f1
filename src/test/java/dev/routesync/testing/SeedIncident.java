package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.Map;

/**
 * The objects of the seed's incident ({@code shared/seeds/002}): a Service {@code quote} (port 80,
 * {@code targetPort: http}, opted in to the mesh) in front of a Deployment of 8 replicas whose
 * container port is named {@code http}; the pull request renamed that port to {@code http-api}.
 */
public final class SeedIncident {

  public static final String NAMESPACE = "prod";
  public static final String SERVICE = "quote";
  public static final int REPLICAS = 8;
  public static final int MAX_SURGE = 2;
  public static final int MAX_UNAVAILABLE = 2;

  private SeedIncident() {}

  /** The Service, labelled {@code mesh-managed=true} (its slices copy the label). */
  public static Service service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(SERVICE)
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addToSelector("app", "quote")
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withTargetPort(new IntOrString("http"))
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  /** The Deployment before the change: container port {@code http} (8080). */
  public static Workload deployment() {
    return new Workload(NAMESPACE, SERVICE, Map.of("app", "quote"), spec("quote:1", "http"));
  }

  /** The change that caused the outage: the container port renamed to {@code http-api}. */
  public static Workload renamed() {
    return deployment().withSpec(spec("quote:1", "http-api"));
  }

  /** A harmless change for a normal rollout: a new image, the port name kept. */
  public static Workload nextImage() {
    return deployment().withSpec(spec("quote:2", "http"));
  }

  private static PodSpec spec(String image, String portName) {
    return new PodSpecBuilder()
        .withContainers(
            new ContainerBuilder()
                .withName("quote")
                .withImage(image)
                .addNewPort()
                .withName(portName)
                .withContainerPort(8080)
                .withProtocol("TCP")
                .endPort()
                .build())
        .build();
  }
}
