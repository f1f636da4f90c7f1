package dev.routesync.table;

import java.util.Objects;

/**
 * Kubernetes' rule for the names a client gives routesync, in one place for every edge: the gRPC
 * and HTTP APIs, the command-line client and the agent's {@code --namespace} flag.
 *
 * <p>Both namespaces and Service names are DNS-1123 labels. For namespaces that is {@code
 * ValidateNamespaceName} in {@code k8s.io/apimachinery/pkg/api/validation}. Service names used to
 * be the stricter DNS-1035 labels (starting with a letter); KEP-5311 ({@code
 * RelaxedServiceNameValidation}: alpha in 1.34, beta and on by default in 1.36) lets new Services
 * be DNS-1123 labels too, so a name such as {@code 1cart} is real. routesync only reads, so it
 * accepts the wider rule: refusing a name the API server accepted would hide a real Service.
 */
public final class KubernetesNames {

  /** The longest label, in characters. */
  public static final int MAX_LABEL_LENGTH = 63;

  static final String DNS_1123_LABEL =
      "must be a DNS-1123 label (lowercase letters, digits and '-', at most "
          + MAX_LABEL_LENGTH
          + " characters, starting and ending with a letter or digit)";

  /** The longest DNS-1123 subdomain (a node name), in characters. */
  public static final int MAX_SUBDOMAIN_LENGTH = 253;

  static final String DNS_1123_SUBDOMAIN =
      "must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most "
          + MAX_SUBDOMAIN_LENGTH
          + " characters, starting and ending with a letter or digit)";

  private KubernetesNames() {}

  /**
   * {@code name} if it is a valid node name: a DNS-1123 subdomain ({@code ValidateNodeName}).
   *
   * @throws InvalidNameException otherwise (the empty name included)
   */
  public static String requireNodeName(String name) {
    Objects.requireNonNull(name, "node name");
    if (!isDns1123Subdomain(name)) {
      throw new InvalidNameException("node name", name, DNS_1123_SUBDOMAIN);
    }
    return name;
  }

  /**
   * Dot-separated parts of lower-case alphanumerics and '-', each starting and ending alphanumeric,
   * at most 253 characters in all ({@code IsDNS1123Subdomain}: its regex does not cap a part at
   * 63).
   */
  public static boolean isDns1123Subdomain(String text) {
    if (text == null || text.isEmpty() || text.length() > MAX_SUBDOMAIN_LENGTH) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean partEdge =
          i == 0
              || i == text.length() - 1
              || text.charAt(i - 1) == '.'
              || text.charAt(i + 1) == '.';
      if (!(isLowerAlphanumeric(c) || (!partEdge && (c == '-' || c == '.')))) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code namespace} if it is a valid namespace name.
   *
   * @throws InvalidNameException otherwise (the empty name included)
   */
  public static String requireNamespace(String namespace) {
    return require("namespace", namespace);
  }

  /**
   * {@code name} if it is a valid Service name.
   *
   * @throws InvalidNameException otherwise (the empty name included)
   */
  public static String requireServiceName(String name) {
    return require("Service name", name);
  }

  /** Lower-case alphanumerics and '-', starting and ending alphanumeric, 1 to 63 characters. */
  public static boolean isDns1123Label(String text) {
    if (text == null || text.isEmpty() || text.length() > MAX_LABEL_LENGTH) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean edge = i == 0 || i == text.length() - 1;
      if (!(isLowerAlphanumeric(c) || (c == '-' && !edge))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The multi-cluster domain (KEP-1645): {@code <svc>.<ns>.svc.clusterset.local} names a
   * ServiceImport, whose endpoints are every exporting cluster's. The agent serves this cluster's
   * Services only, so a clusterset name is refused wherever a name is read, never taken as the
   * local Service of the same name.
   */
  public static final String CLUSTERSET_DOMAIN = "clusterset.local";

  static final String CLUSTERSET_REFUSAL =
      "a multi-cluster name ("
          + CLUSTERSET_DOMAIN
          + "): MCS ServiceImports are not served, only this cluster's Services (name one by its"
          + " namespace and name)";

  private static String require(String what, String text) {
    Objects.requireNonNull(text, what);
    if (!isDns1123Label(text)) {
      // Only an invalid name can be one (a label has no dots): the check costs valid names nothing.
      if (text.length() <= MAX_SUBDOMAIN_LENGTH + 8
          && text.toLowerCase(java.util.Locale.ROOT).contains(".svc." + CLUSTERSET_DOMAIN)) {
        throw new InvalidNameException(what, text, CLUSTERSET_REFUSAL);
      }
      throw new InvalidNameException(what, text, DNS_1123_LABEL);
    }
    return text;
  }

  // ASCII only: Character.isLetterOrDigit would also take other scripts.
  private static boolean isLowerAlphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}
