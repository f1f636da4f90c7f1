package dev.routesync.table;

import java.util.Objects;

/**
 * Where this node's clients of one Service route, decided once when the Service's entry is made
 * ({@link TopologyRule}) and shared by every client: kube-proxy's decision for this node.
 *
 * @param mode which endpoints are chosen
 * @param fallback why the Service's hints were not followed (hints exist but this node falls back
 *     to every endpoint), or null when there is nothing to say
 * @param node the node the decision was made for (null when unknown)
 * @param zone the zone the decision was made for (null when unknown)
 * @param localTerminating for {@link Mode#LOCAL}: whether this node has no ready endpoint and its
 *     serving terminating ones are chosen instead (kube-proxy's local fallback); false otherwise
 */
public record TopologyDecision(
    Mode mode, Fallback fallback, String node, String zone, boolean localTerminating) {

  /** No topology: every routable endpoint, as most Services get. Shared. */
  public static final TopologyDecision NONE = new TopologyDecision(Mode.NONE, null, null, null);

  /** Which endpoints a node's clients route to. */
  public enum Mode {
    /** Every routable endpoint (no hints, or the node falls back). */
    NONE("none"),
    /** The endpoints hinted for this zone ({@code hints.forZones}). */
    SAME_ZONE("same-zone"),
    /** The endpoints hinted for this node ({@code hints.forNodes}). */
    SAME_NODE("same-node"),
    /** internalTrafficPolicy Local: this node's endpoints only. */
    LOCAL("local"),
    /** internalTrafficPolicy Local and no endpoint on this node: nothing, never a remote one. */
    NO_LOCAL_ENDPOINT("no-local-endpoint");

    private final String text;

    Mode(String text) {
      this.text = text;
    }

    /** The mode as clients show it. */
    public String text() {
      return text;
    }
  }

  /** Why a Service with hints is routed to every endpoint on this node. Bounded: a metric label. */
  public enum Fallback {
    /** A ready endpoint has no zone hint (the controller could not place every endpoint). */
    MISSING_HINTS("missing_hints", "a ready endpoint has no zone hint"),
    /** Every ready endpoint has a zone hint, but this node's zone is not known. */
    NODE_ZONE_UNKNOWN("node_zone_unknown", "this node has no topology.kubernetes.io/zone label"),
    /** Every ready endpoint has a zone hint, and none names this node's zone. */
    NO_HINT_FOR_ZONE("no_hint_for_zone", "no ready endpoint is hinted for this node's zone");

    private final String label;
    private final String reason;

    Fallback(String label, String reason) {
      this.label = label;
      this.reason = reason;
    }

    /** The metric label. */
    public String label() {
      return label;
    }

    /** The reason in words. */
    public String reason() {
      return reason;
    }
  }

  /** The reason clients are given for {@link Mode#NO_LOCAL_ENDPOINT}. */
  public static final String NO_NODE_LOCAL_ENDPOINT = "no node-local endpoint";

  /**
   * The reason clients are given for {@link Mode#LOCAL} when this node's serving terminating
   * endpoints are chosen because none of its endpoints is ready.
   */
  public static final String LOCAL_TERMINATING_FALLBACK = "local terminating fallback";

  public TopologyDecision {
    Objects.requireNonNull(mode, "mode");
    if (localTerminating && mode != Mode.LOCAL) {
      throw new IllegalArgumentException("only a LOCAL decision falls back to terminating ones");
    }
  }

  /** A decision that is not the Local terminating fallback. */
  public TopologyDecision(Mode mode, Fallback fallback, String node, String zone) {
    this(mode, fallback, node, zone, false);
  }

  /**
   * Whether {@code endpoint} (one of the Service's routable endpoints) is in the chosen set: what
   * kube-proxy would route to from this node.
   */
  public boolean selects(Endpoint endpoint) {
    return switch (mode) {
      case NONE -> true;
      case SAME_ZONE -> endpoint.ready() && endpoint.hints().hasZone(zone);
      case SAME_NODE -> endpoint.ready() && endpoint.hints().hasNode(node);
      // kube-proxy's CategorizeEndpoints for Local: this node's ready endpoints, or when none is
      // ready its serving terminating ones; never both.
      case LOCAL ->
          node != null
              && node.equals(endpoint.node())
              && (localTerminating
                  ? !endpoint.ready() && endpoint.serving() && endpoint.terminating()
                  : endpoint.ready());
      case NO_LOCAL_ENDPOINT -> false;
    };
  }

  /**
   * The reason in words: the fallback's, or {@code no node-local endpoint}, or {@code local
   * terminating fallback}, or empty.
   */
  public String reason() {
    if (mode == Mode.NO_LOCAL_ENDPOINT) {
      return NO_NODE_LOCAL_ENDPOINT;
    }
    if (localTerminating) {
      return LOCAL_TERMINATING_FALLBACK;
    }
    return fallback == null ? "" : fallback.reason();
  }
}
