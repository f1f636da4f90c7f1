package dev.routesync.e2e;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A ServiceAccount's identity as a pod would hold it: a bound token from the TokenRequest API, and
 * a kubeconfig with nothing else in it (the admin kubeconfig's server and CA, {@code token:}), so
 * that whatever the agent may do with it, the ServiceAccount's RBAC alone allows.
 */
record ServiceAccountIdentity(String namespace, String name, String token, Path kubeconfig) {

  /** How long the token lives: longer than any test, short enough not to matter if it leaks. */
  private static final String TOKEN_DURATION = "15m";

  static ServiceAccountIdentity request(
      ControlPlane cluster, String namespace, String name, Path dir) throws IOException {
    String token =
        cluster
            .kubectl("create", "token", name, "-n", namespace, "--duration=" + TOKEN_DURATION)
            .strip();
    Path kubeconfig = dir.resolve(name + ".kubeconfig");
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: e2e",
            "  cluster:",
            "    server: " + cluster.server(),
            "    certificate-authority: " + cluster.caCertificate(),
            "users:",
            "- name: " + name,
            "  user:",
            "    token: " + token,
            "contexts:",
            "- name: e2e",
            "  context: {cluster: e2e, user: " + name + "}",
            "current-context: e2e",
            ""));
    return new ServiceAccountIdentity(namespace, name, token, kubeconfig);
  }

  /** The Kubernetes username RBAC sees for this token. */
  String username() {
    return "system:serviceaccount:" + namespace + ":" + name;
  }

  /** A fabric8 client that authenticates with the token only (no retries: a 403 is the answer). */
  KubernetesClient client(ControlPlane cluster) {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(cluster.server())
            .withCaCertFile(cluster.caCertificate().toString())
            .withOauthToken(token)
            .withRequestTimeout(15_000)
            .withConnectionTimeout(10_000)
            .withRequestRetryBackoffLimit(0)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
