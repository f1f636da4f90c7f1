package dev.routesync.testing;

/**
 * The one message every edge gives for a name that breaks Kubernetes' rule, written out here
 * literally (not read from the code under test) so that the edges' tests check the text itself.
 */
public final class NameRule {

  /** What a namespace or a Service name must be. */
  public static final String RULE =
      "must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters,"
          + " starting and ending with a letter or digit)";

  private NameRule() {}

  /** The message for the namespace {@code value} (a short one: long values are shortened). */
  public static String namespace(String value) {
    return "namespace \"" + value + "\": " + RULE;
  }

  /** The message for the Service name {@code value}. */
  public static String serviceName(String value) {
    return "Service name \"" + value + "\": " + RULE;
  }
}
