package dev.routesync.sidecars;

import dev.routesync.table.ServiceKey;

/**
 * The changes one response carries, as far as the propagation histogram cares: the oldest trigger
 * time found when the response was built, and the first Service update whose trigger time was not
 * in the ledger yet. The sync stage writes the ledger just after it publishes, so a stream woken by
 * the publish can build its response first; that one is looked up again when the client
 * acknowledges (by then the ledger has it). One per response, two lookups at most per Service, no
 * allocation per endpoint. Owned by the stream's event loop.
 */
public final class Carried {

  private final TriggerLedger ledger;
  private long oldest;
  private ServiceKey unresolved;
  private long unresolvedVersion;

  Carried(TriggerLedger ledger) {
    this.ledger = ledger;
  }

  /** The response carries {@code service} at {@code version}, an update of what the client had. */
  public void add(ServiceKey service, long version) {
    long trigger = ledger.triggerMillis(service, version);
    if (trigger != 0) {
      oldest = oldest == 0 ? trigger : Math.min(oldest, trigger);
    } else if (unresolved == null) {
      unresolved = service;
      unresolvedVersion = version;
    }
  }

  /** The oldest trigger time the response carries (epoch millis), 0 if none is known. */
  long resolve() {
    long trigger = oldest;
    if (unresolved != null) {
      long late = ledger.triggerMillis(unresolved, unresolvedVersion);
      if (late != 0) {
        trigger = trigger == 0 ? late : Math.min(trigger, late);
      }
    }
    return trigger;
  }
}
