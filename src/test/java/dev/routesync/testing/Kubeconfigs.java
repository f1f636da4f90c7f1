package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.ConfigBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Kubeconfig files for tests, built with fabric8's kubeconfig model and written by its serializer
 * (so the YAML is quoted and shaped as fabric8 reads it back): one cluster, one token user and one
 * context, all named {@code name}, made current.
 */
public final class Kubeconfigs {

  private Kubeconfigs() {}

  /** A kubeconfig for {@code server} with a bearer token and no default namespace. */
  public static String withToken(String name, String server, String token) {
    return withToken(name, server, token, null);
  }

  /**
   * A kubeconfig for {@code server} with a bearer token; {@code namespace} (may be null) is the
   * context's default namespace.
   */
  public static String withToken(String name, String server, String token, String namespace) {
    Config config =
        new ConfigBuilder()
            .withApiVersion("v1")
            .withKind("Config")
            .addNewCluster()
            .withName(name)
            .withNewCluster()
            .withServer(server)
            .endCluster()
            .endCluster()
            .addNewUser()
            .withName(name)
            .withNewUser()
            .withToken(token)
            .endUser()
            .endUser()
            .addNewContext()
            .withName(name)
            .withNewContext()
            .withCluster(name)
            .withUser(name)
            .withNamespace(namespace)
            .endContext()
            .endContext()
            .withCurrentContext(name)
            .build();
    return new KubernetesSerialization().asYaml(config);
  }
}
