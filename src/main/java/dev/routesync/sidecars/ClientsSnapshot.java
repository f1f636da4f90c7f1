package dev.routesync.sidecars;

import java.util.List;

/**
 * The answer of {@code GET /v1/clients}: at most {@code limit} streams, the most behind first.
 *
 * @param total streams open
 * @param behind how many of them are behind by more than {@code behindThresholdMillis}
 * @param limit the most listed
 * @param clients the listed streams, most behind first, then the longest connected
 */
public record ClientsSnapshot(
    int total, int behind, long behindThresholdMillis, int limit, List<ClientView> clients) {

  public ClientsSnapshot {
    clients = List.copyOf(clients);
  }

  /** Whether some streams are not listed. */
  public boolean truncated() {
    return clients.size() < total;
  }
}
