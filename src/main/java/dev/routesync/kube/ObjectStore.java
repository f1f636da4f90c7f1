package dev.routesync.kube;

import dev.routesync.kube.translate.ObjectTranslation;
import dev.routesync.lists.NamedLists;
import dev.routesync.table.ServiceKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer's item store (fabric8 {@code SharedIndexInformer.itemStore}): instead of every
 * decoded object, it keeps each object's {@link StoredObject}, translated once when the object
 * arrives, and an index of them by Service. Where fabric8 asks for an object back (an update's
 * previous object, a relist's deletions, {@code list()}) it gets a metadata-only {@link
 * WatchedKind#skeleton}: fabric8 reads only the key and resourceVersion of what it stored, and the
 * agent's sink only the Service an object belonged to.
 *
 * <p>At 40,000 slices of 25 endpoints the decoded objects were most of a gigabyte; their
 * translations are the table's own endpoints (shared with it for one-slice Services). A second
 * consumer of the watch that needs more than the translation (the drift detector) gets its own
 * compact form of each object made here ({@link CompactForms}), never the decoded object.
 *
 * <p>An object whose translation is unchanged from the one held, here or in the served generation's
 * store ({@code served}), keeps the held instances: a relist that changes nothing keeps no second
 * copy of the endpoints, and its flush finds the very lists the table holds.
 *
 * <p>Threading: written by the informer (fabric8 serialises its writes), read from the sync
 * context; both maps are concurrent and their values immutable.
 */
final class ObjectStore<T extends HasMetadata> implements ItemStore<T> {

  /** Set by the EndpointSlice and Endpoints controllers to when the triggering change happened. */
  static final String TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time";

  private static final Logger LOG = LoggerFactory.getLogger(ObjectStore.class);

  private final WatchedKind<T> kind;
  private final CompactForms<T, ?> forms;
  // Set once the consumer has read the forms (CompactForms.handOver): from then on it makes the
  // forms of later versions from the events itself.
  private volatile boolean formsHandedOver;
  private final Function<String, StoredObject<T>> served;
  private final Map<String, StoredObject<T>> byKey = new ConcurrentHashMap<>();
  // Each Service's objects, sorted by name (the merge order), as an immutable list.
  private final Map<ServiceKey, List<StoredObject<T>>> byService = new ConcurrentHashMap<>();
  private final LongAdder translations = new LongAdder();

  /**
   * @param forms what a second consumer keeps of each object, or null when there is none
   * @param served the served generation's entry for a key (null when none), for reuse
   */
  ObjectStore(
      WatchedKind<T> kind, CompactForms<T, ?> forms, Function<String, StoredObject<T>> served) {
    this.kind = kind;
    this.forms = forms;
    this.served = served;
  }

  @Override
  public String getKey(T object) {
    ObjectMeta meta = object.getMetadata();
    String namespace = meta == null ? null : meta.getNamespace();
    String name = meta == null ? null : meta.getName();
    return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
  }

  @Override
  public T put(String key, T object) {
    StoredObject<T> stored = store(key, object);
    StoredObject<T> old = byKey.put(key, stored);
    if (old != null && old.service() != null && !old.service().equals(stored.service())) {
      unindex(old);
    }
    if (stored.service() != null) {
      byService.compute(
          stored.service(),
          (service, objects) -> NamedLists.with(objects, stored, StoredObject::name));
    }
    return exposed(old);
  }

  @Override
  public T remove(String key) {
    StoredObject<T> old = byKey.remove(key);
    if (old != null && old.service() != null) {
      unindex(old);
    }
    return exposed(old);
  }

  @Override
  public Stream<String> keySet() {
    return byKey.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return byKey.values().stream().map(this::exposed);
  }

  @Override
  public int size() {
    return byKey.size();
  }

  @Override
  public T get(String key) {
    return exposed(byKey.get(key));
  }

  /** The object stored under a fabric8 key ({@code namespace/name}), or null. */
  StoredObject<T> stored(String key) {
    return byKey.get(key);
  }

  /** One Service's objects, sorted by name; empty when it has none. */
  List<StoredObject<T>> objectsOf(ServiceKey service) {
    return byService.getOrDefault(service, List.of());
  }

  /** Every Service with at least one object here. */
  Iterable<ServiceKey> services() {
    return byService.keySet();
  }

  /**
   * Adds every object's form to {@code into}, then makes no more (see {@link CompactForms}). An
   * object stored while this runs is either read or, stored after, reaches the consumer as an event
   * (the generation has synced, so its events are passed on once it is served).
   */
  <C> void handOverForms(CompactForms<T, C> consumer, List<C> into) {
    if (consumer != forms) {
      throw new IllegalArgumentException("not this store's forms");
    }
    for (StoredObject<T> stored : byKey.values()) {
      if (stored.form() != null) {
        into.add(consumer.cast(stored.form()));
      }
    }
    formsHandedOver = true;
  }

  /** Objects translated so far: one per object version that arrived (a test's seam). */
  long translations() {
    return translations.sum();
  }

  private StoredObject<T> store(String key, T object) {
    ObjectMeta meta = object.getMetadata();
    String version = meta == null ? null : meta.getResourceVersion();
    StoredObject<T> held = byKey.get(key);
    if (held != null && version != null && version.equals(held.resourceVersion())) {
      // The same version again on this informer's own stream (a watch replaying what it listed, a
      // relist in place after 410 Gone): fabric8 sends no update for it, and nothing changed.
      return held;
    }
    ServiceKey service;
    ObjectTranslation translation;
    try {
      service = kind.serviceKeyOf(object).orElse(null);
      translation = kind.translateOne(object);
    } catch (RuntimeException e) {
      // The translators never throw by design; if one did, fabric8's cache must not break.
      LOG.error("could not translate {} {}; it contributes no endpoints", kind.kind(), key, e);
      service = null;
      translation = ObjectTranslation.EMPTY;
    }
    translations.increment();
    StoredObject<T> known = held;
    if (known == null) {
      known = served.apply(key);
    }
    // Translated even when the served generation holds the same version: across lists a
    // resourceVersion alone cannot be trusted to mean the same content (an API server restored
    // from a backup, or restarted empty as the mock does, reuses versions).
    // When the content is the same, keep the instances already held: the table shares them, and
    // its flush compares a list with itself.
    // The strings are interned only when new: String.intern is a lookup in the JVM's string table
    // (2.4% of the agent's CPU at 300 events/s when every event paid it), and an update almost
    // always names the Service and namespace its store already holds.
    String namespace = meta == null ? null : meta.getNamespace();
    if (known != null && known.translation().equals(translation)) {
      translation = known.translation();
    }
    service =
        known != null && Objects.equals(known.service(), service)
            ? known.service()
            : interned(service);
    namespace =
        known != null && Objects.equals(known.namespace(), namespace)
            ? known.namespace()
            : namespace == null ? null : namespace.intern();
    return new StoredObject<>(
        namespace,
        meta == null ? null : meta.getName(),
        version,
        service,
        translation,
        triggerTimeOf(meta),
        formOf(key, object));
  }

  private Object formOf(String key, T object) {
    if (forms == null || formsHandedOver) {
      return null;
    }
    try {
      return forms.formOf(object);
    } catch (RuntimeException e) {
      LOG.error("could not make the compact form of {} {}", kind.kind(), key, e);
      return null;
    }
  }

  private void unindex(StoredObject<T> old) {
    byService.computeIfPresent(
        old.service(),
        (service, objects) -> NamedLists.without(objects, old.name(), StoredObject::name));
  }

  private T exposed(StoredObject<T> stored) {
    if (stored == null) {
      return null;
    }
    return kind.skeleton(
        stored.namespace(), stored.name(), stored.resourceVersion(), stored.service());
  }

  /**
   * The key with its strings interned: a Service's name is held by the table's key, the drift
   * detector and the Services watch's store, from two objects (a slice's label, the Service's own
   * name) and from every list's decode of them again; one instance for all of them (~4 MiB at
   * 40,000 Services after a relist, when each holder kept the string of the list it last saw).
   */
  private static ServiceKey interned(ServiceKey key) {
    return key == null ? null : new ServiceKey(key.namespace().intern(), key.name().intern());
  }

  /** Parsed once per object version; a bad annotation only costs the metric. */
  private static Instant triggerTimeOf(ObjectMeta meta) {
    Map<String, String> annotations = meta == null ? null : meta.getAnnotations();
    return TriggerTimes.parse(
        annotations == null ? null : annotations.get(TRIGGER_TIME_ANNOTATION));
  }

  @Override
  public String toString() {
    return kind.kind() + " store (" + byKey.size() + " objects)";
  }
}
