package dev.routesync.testing;

import dev.routesync.api.v1.ServiceEndpoints;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Watch subscriber as a sidecar would write one: applies each event to its own copy of the table
 * (a reset replaces everything) and remembers how the stream ended.
 */
public final class WatchRecorder implements StreamObserver<WatchEvent> {

  private final List<WatchEvent> events = new CopyOnWriteArrayList<>();
  private final Map<String, ServiceEndpoints> state = new TreeMap<>();
  private final AtomicReference<Status> ended = new AtomicReference<>();
  private volatile long version;

  @Override
  public synchronized void onNext(WatchEvent event) {
    events.add(event);
    if (event.getReset()) {
      state.clear();
    }
    for (ServiceEndpoints service : event.getUpsertedList()) {
      state.put(service.getNamespace() + "/" + service.getName(), service);
    }
    for (ServiceRef removed : event.getRemovedList()) {
      state.remove(removed.getNamespace() + "/" + removed.getName());
    }
    version = event.getVersion();
  }

  @Override
  public void onError(Throwable error) {
    ended.set(Status.fromThrowable(error));
  }

  @Override
  public void onCompleted() {
    ended.set(Status.OK);
  }

  public List<WatchEvent> events() {
    return List.copyOf(events);
  }

  /** This subscriber's view of the table: {@code namespace/name} to its endpoints. */
  public synchronized Map<String, ServiceEndpoints> state() {
    return new TreeMap<>(state);
  }

  public long version() {
    return version;
  }

  /** How the stream ended, or null while it is open. */
  public Status ended() {
    return ended.get();
  }
}
