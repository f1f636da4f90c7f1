package dev.routesync.sidecars;

/** The protocol of a tracked stream; a bounded metric label. */
public enum Protocol {
  /** {@code routesync.v1.Registry/Watch}. */
  WATCH("watch"),
  /** State-of-the-world ADS ({@code StreamAggregatedResources}). */
  ADS("ads"),
  /** Delta ADS ({@code DeltaAggregatedResources}). */
  DELTA_ADS("delta-ads");

  private final String label;

  Protocol(String label) {
    this.label = label;
  }

  /** {@code watch}, {@code ads} or {@code delta-ads}. */
  public String label() {
    return label;
  }
}
