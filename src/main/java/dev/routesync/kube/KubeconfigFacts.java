package dev.routesync.kube;

import io.fabric8.kubernetes.client.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a person debugging the agent may know about its cluster connection, for the debug bundle:
 * the API server's URL, the namespace, the kubeconfig context, whether certificates are trusted
 * blindly, and which kinds of credential are configured ({@code token}, {@code client certificate},
 * {@code username and password}, {@code auth provider}). Never a credential's value: only whether
 * one is there. A credential obtained by an {@code exec} plugin shows as the token or certificate
 * the plugin produced; telling it apart would mean reading the kubeconfig again.
 */
public final class KubeconfigFacts {

  private KubeconfigFacts() {}

  public static Map<String, String> of(Config config) {
    Map<String, String> facts = new TreeMap<>();
    put(facts, "server", config.getMasterUrl());
    put(facts, "namespace", config.getNamespace());
    if (config.getCurrentContext() != null) {
      put(facts, "context", config.getCurrentContext().getName());
    }
    facts.put("trustCerts", String.valueOf(Boolean.TRUE.equals(config.getTrustCerts())));
    facts.put("auth", String.join(", ", credentialKinds(config)));
    return facts;
  }

  private static List<String> credentialKinds(Config config) {
    List<String> kinds = new ArrayList<>();
    if (present(config.getOauthToken())
        || present(config.getAutoOAuthToken())
        || config.getOauthTokenProvider() != null) {
      kinds.add("token");
    }
    if (present(config.getClientCertFile()) || present(config.getClientCertData())) {
      kinds.add("client certificate");
    }
    if (present(config.getUsername()) && present(config.getPassword())) {
      kinds.add("username and password");
    }
    if (config.getAuthProvider() != null) {
      kinds.add("auth provider");
    }
    if (kinds.isEmpty()) {
      kinds.add("none");
    }
    return kinds;
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }

  private static void put(Map<String, String> facts, String key, String value) {
    if (present(value)) {
      facts.put(key, value);
    }
  }
}
