package dev.routesync.sidecars;

import java.util.List;

/**
 * One stream as {@code GET /v1/clients} lists it.
 *
 * @param name the client's {@code node.id} (ADS) or {@code client_name} (Watch), bounded
 * @param subscribed the resources it follows
 * @param lastNack the message of its last NACK, bounded; empty if none
 * @param lastNackType the type it rejected, empty if none
 * @param behindMillis how long it has lacked something published; 0 when caught up
 * @param connectedMillis how long the stream has been open
 */
public record ClientView(
    Protocol protocol,
    PeerIds peer,
    String name,
    int subscribed,
    List<TypeSync> types,
    String lastNack,
    String lastNackType,
    long behindMillis,
    long connectedMillis) {

  public ClientView {
    types = List.copyOf(types);
  }
}
