package dev.routesync.table;

/**
 * A namespace or Service name that breaks Kubernetes' rule, or text that is not {@code
 * namespace/name}. The message has one format, {@code <what> "<value>": <what it must be>}, and
 * every edge passes it on unchanged: gRPC as INVALID_ARGUMENT, HTTP as a 400 with a JSON body, the
 * command line as a usage error (exit code 2).
 */
public final class InvalidNameException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  InvalidNameException(String what, String value, String mustBe) {
    super(what + " " + ClientText.quoted(value) + ": " + mustBe);
  }
}
