package dev.routesync.rules;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.util.Arrays;
import java.util.List;

/** Terse builders for the rules' tests. */
final class Specs {

  private Specs() {}

  static ContainerPort port(String name, int number) {
    return port(name, number, null);
  }

  static ContainerPort port(String name, int number, String protocol) {
    return new ContainerPortBuilder()
        .withName(name)
        .withContainerPort(number)
        .withProtocol(protocol)
        .build();
  }

  static Container container(String name, ContainerPort... ports) {
    return new ContainerBuilder().withName(name).withPorts(Arrays.asList(ports)).build();
  }

  static Container sidecar(String name, ContainerPort... ports) {
    return new ContainerBuilder()
        .withName(name)
        .withRestartPolicy("Always")
        .withPorts(Arrays.asList(ports))
        .build();
  }

  static Container init(String name, ContainerPort... ports) {
    return new ContainerBuilder().withName(name).withPorts(Arrays.asList(ports)).build();
  }

  static PodSpec pod(List<Container> containers, List<Container> initContainers) {
    return new PodSpecBuilder()
        .withContainers(containers)
        .withInitContainers(initContainers)
        .build();
  }

  static PodSpec pod(Container... containers) {
    return pod(Arrays.asList(containers), List.of());
  }

  static ServicePort servicePort(String name, int port, IntOrString target, String protocol) {
    return new ServicePortBuilder()
        .withName(name)
        .withPort(port)
        .withTargetPort(target)
        .withProtocol(protocol)
        .build();
  }

  static ServicePort named(String name, int port, String targetName) {
    return servicePort(name, port, new IntOrString(targetName), null);
  }
}
