package dev.routesync.table;

import java.util.regex.Pattern;

/**
 * Kubernetes' rule for namespace and Service names (an RFC 1123 label), in one place for every edge
 * that checks names: flags, the HTTP and gRPC APIs, the command-line client.
 */
public final class KubernetesNames {

  private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private KubernetesNames() {}

  /** Lower-case alphanumerics and '-', starting and ending alphanumeric, at most 63 characters. */
  public static boolean isDns1123Label(String text) {
    return text != null && text.length() <= 63 && DNS_1123_LABEL.matcher(text).matches();
  }
}
