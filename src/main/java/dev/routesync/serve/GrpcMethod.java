package dev.routesync.serve;

/**
 * The methods of {@code routesync.v1.Registry}; the {@code method} label on {@code
 * routesync.grpc.requests}, spelled as in the proto.
 */
public enum GrpcMethod {
  RESOLVE("Resolve"),
  LIST("List"),
  WATCH("Watch"),
  STATUS("Status");

  private final String label;

  GrpcMethod(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
