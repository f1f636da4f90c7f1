package dev.routesync.kube.events;

/**
 * Who writes the Events: {@code reportingController} (a qualified name, e.g. {@code
 * routesync.dev/drift-detector}) and {@code reportingInstance} (this agent, {@code
 * routesync-<node>}), both required by {@code events.k8s.io/v1}.
 */
public record Reporter(String controller, String instance) {

  /** The drift detector's controller name. */
  public static final String DRIFT_DETECTOR = "routesync.dev/drift-detector";

  /** The agent's own controller name: Events about the agent itself, such as its heap budget. */
  public static final String AGENT = "routesync.dev/agent";

  /** The API's limit on {@code reportingInstance}. */
  static final int INSTANCE_LIMIT = 128;

  public Reporter {
    if (controller == null || controller.isBlank() || instance == null || instance.isBlank()) {
      throw new IllegalArgumentException("controller and instance must not be blank");
    }
    if (instance.length() > INSTANCE_LIMIT) {
      throw new IllegalArgumentException(
          "reportingInstance is at most " + INSTANCE_LIMIT + " characters: " + instance);
    }
  }

  /**
   * {@code controller} on the agent of {@code nodeName}: instance {@code routesync-<node>}, cut to
   * the API's 128 characters (node names may have 253).
   */
  public static Reporter onNode(String controller, String nodeName) {
    String instance = "routesync-" + nodeName;
    return new Reporter(
        controller,
        instance.length() > INSTANCE_LIMIT ? instance.substring(0, INSTANCE_LIMIT) : instance);
  }
}
