package dev.routesync.xds;

import java.util.Locale;

/**
 * The kind of xDS client on a stream, from its {@code node.user_agent_name}: a bounded label for
 * metrics (the name itself is the client's to choose).
 */
public enum XdsClient {
  GRPC_JAVA("grpc-java"),
  GRPC_NODE("grpc-node"),
  GRPC_GO("grpc-go"),
  GRPC_CORE("grpc-core"),
  ENVOY("envoy"),
  OTHER("other"),
  UNKNOWN("unknown");

  private final String label;

  XdsClient(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** The kind of client that calls itself {@code userAgentName}. */
  public static XdsClient of(String userAgentName) {
    if (userAgentName == null || userAgentName.isEmpty()) {
      return UNKNOWN;
    }
    String name = userAgentName.toLowerCase(Locale.ROOT);
    if (name.startsWith("envoy")) {
      return ENVOY;
    }
    if (name.contains("grpc-java") || name.equals("grpc java")) {
      return GRPC_JAVA;
    }
    if (name.contains("node")) {
      return GRPC_NODE;
    }
    if (name.contains("grpc-go") || name.contains("grpc go")) {
      return GRPC_GO;
    }
    // C-core and the languages wrapping it (C++, Python, Ruby, PHP, C#).
    if (name.contains("c-core") || name.contains("c++") || name.contains("python")) {
      return GRPC_CORE;
    }
    return OTHER;
  }
}
