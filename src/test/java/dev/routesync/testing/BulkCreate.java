package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudDispatcherException;
import io.fabric8.kubernetes.client.server.mock.crud.KubernetesCrudPersistence;
import io.fabric8.kubernetes.client.server.mock.crud.PostHandler;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * Creates many objects in the CRUD mock at once, through the mock's own create handler (fabric8's
 * {@code PostHandler}: the same uid, resourceVersion, creationTimestamp, generation, status
 * handling, attribute index and watch events as a POST), without an HTTP round trip per object.
 *
 * <p>Why not POSTs: besides the round trip, the mock checks each create for a name conflict with a
 * linear scan of everything it stores ({@code findResource}) under its one write lock, so seeding N
 * objects costs O(N²): 40,000 Services and their 40,000 slices took over 10 minutes at ~130
 * writes/s. Here the conflict check looks the name up in a set of the names stored (built once per
 * batch, O(N)); a name already there still gets the mock's own answer (409), through its scan.
 * Bodies are serialised and parsed (the mock's own {@code validateRequestBody}) in parallel before
 * the lock is taken; the handler is then handed each parse instead of parsing again.
 *
 * <p>The batch holds the mock's write lock, as each POST does for its one object: lists and watches
 * wait for it and then see all of it. fabric8 8.0.0 has no public way to this, so the dispatcher's
 * lock and extractor are read by reflection (like {@link NodeIndex}; a fabric8 upgrade that renames
 * them fails {@code BulkCreateTest} loudly).
 */
final class BulkCreate {

  private final KubernetesCrudDispatcher store;
  private final KubernetesAttributesExtractor extractor;
  private final Lock writeLock;

  BulkCreate(KubernetesCrudDispatcher store) {
    this.store = store;
    try {
      this.extractor =
          (KubernetesAttributesExtractor) field(store, "kubernetesAttributesExtractor");
      this.writeLock = ((ReadWriteLock) field(store, "lock")).writeLock();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("fabric8's mock changed: cannot create in bulk", e);
    }
  }

  /**
   * Creates {@code objects} in order, as POSTs to their collections would.
   *
   * @return the uid the mock gave each, in the same order
   * @throws IllegalStateException for the first the mock refuses (the mock's status body), after
   *     the ones before it were created
   */
  List<String> createAll(Collection<? extends HasMetadata> objects) {
    // Serialised and parsed back (by the mock's own parse and checks of a request body) outside
    // the lock, in parallel: most of the cost. Only the creates themselves are one at a time.
    PostHandler parser = new PostHandler(extractor, store);
    List<Request> requests =
        objects.parallelStream()
            .map(o -> Request.of(collectionPath(o), Serialization.asJson(o), parser))
            .toList();
    List<String> uids = new ArrayList<>(objects.size());
    writeLock.lock();
    try {
      IndexedNames persistence = new IndexedNames(store, storedNames());
      PreParsed post = new PreParsed(extractor, persistence);
      for (Request request : requests) {
        MockResponse response;
        try {
          post.next = request.parsed();
          response = post.handle(request.path(), "application/json", request.body());
        } catch (KubernetesCrudDispatcherException e) {
          throw new IllegalStateException(
              "the mock refused " + request.path() + ": " + e.toStatusBody(), e);
        }
        if (response.code() / 100 != 2) {
          throw new IllegalStateException(
              "the mock answered " + response.code() + " to " + request.path());
        }
        uids.add(persistence.lastUid);
      }
    } finally {
      writeLock.unlock();
    }
    return uids;
  }

  /** A POST: its path, its body, and the body as the mock parses it (null: it refuses it). */
  private record Request(String path, String body, GenericKubernetesResource parsed) {
    static Request of(String path, String body, PostHandler parser) {
      try {
        return new Request(path, body, parser.validateRequestBody(body));
      } catch (KubernetesCrudDispatcherException e) {
        return new Request(path, body, null); // the create parses it again, and refuses it
      }
    }
  }

  /** The mock's create handler, handed each body already parsed by its own parse. */
  private static final class PreParsed extends PostHandler {
    GenericKubernetesResource next;

    PreParsed(KubernetesAttributesExtractor extractor, KubernetesCrudPersistence persistence) {
      super(extractor, persistence);
    }

    @Override
    public GenericKubernetesResource validateRequestBody(String body)
        throws KubernetesCrudDispatcherException {
      GenericKubernetesResource parsed = next;
      next = null;
      return parsed != null ? parsed : super.validateRequestBody(body);
    }
  }

  /** The POST path of an object's collection: {@code /api/v1/namespaces/ns/pods} and the like. */
  static String collectionPath(HasMetadata object) {
    String apiVersion = object.getApiVersion();
    StringBuilder path = new StringBuilder(apiVersion.contains("/") ? "/apis/" : "/api/");
    path.append(apiVersion);
    String namespace = object.getMetadata().getNamespace();
    if (namespace != null && !namespace.isEmpty()) {
      path.append("/namespaces/").append(namespace);
    }
    return path.append('/').append(HasMetadata.getPlural(object.getClass())).toString();
  }

  /** plural/namespace/name of every stored object: one pass, not one per create. */
  private Set<AttributeSet> storedNames() {
    Map<AttributeSet, String> map = store.getMap();
    Set<AttributeSet> names = new HashSet<>();
    synchronized (map) { // a synchronizedMap: iterate holding its monitor
      for (AttributeSet key : map.keySet()) {
        names.add(nameOf(key));
      }
    }
    return names;
  }

  private static AttributeSet nameOf(AttributeSet attributes) {
    List<Attribute> name = new ArrayList<>(3);
    for (String key :
        List.of(
            KubernetesAttributesExtractor.PLURAL,
            KubernetesAttributesExtractor.NAMESPACE,
            KubernetesAttributesExtractor.NAME)) {
      Attribute attribute = attributes.getAttribute(key);
      if (attribute != null) {
        name.add(attribute);
      }
    }
    return new AttributeSet(name);
  }

  private static Object field(Object owner, String name) throws ReflectiveOperationException {
    Field field = KubernetesCrudDispatcher.class.getDeclaredField(name);
    field.setAccessible(true);
    return field.get(owner);
  }

  /**
   * The mock's persistence with its name-conflict check answered from a set: everything else is the
   * mock's own. Records the uid of the object last created.
   */
  private static final class IndexedNames implements KubernetesCrudPersistence {
    private final KubernetesCrudDispatcher store;
    private final Set<AttributeSet> names;
    String lastUid;

    IndexedNames(KubernetesCrudDispatcher store, Set<AttributeSet> names) {
      this.store = store;
      this.names = names;
    }

    @Override
    public long requestResourceVersion() {
      return store.requestResourceVersion();
    }

    @Override
    public AttributeSet getKey(String path) {
      return store.getKey(path);
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
      // Only a name known to be stored is worth the mock's scan (which finds it, and the 409).
      return names.contains(nameOf(attributes)) ? store.findResource(attributes) : null;
    }

    @Override
    public boolean isStatusSubresourceEnabledForResource(String path) {
      return store.isStatusSubresourceEnabledForResource(path);
    }

    @Override
    public void processEvent(
        String path,
        AttributeSet pathAttributes,
        AttributeSet oldAttributes,
        GenericKubernetesResource resource,
        String newState) {
      store.processEvent(path, pathAttributes, oldAttributes, resource, newState);
      if (resource != null && newState != null) {
        names.add(nameOf(extractorKey(path, resource)));
        lastUid = resource.getMetadata().getUid();
      }
    }

    private AttributeSet extractorKey(String path, GenericKubernetesResource resource) {
      AttributeSet key = store.getKey(path);
      return key.add(
          new Attribute(KubernetesAttributesExtractor.NAME, resource.getMetadata().getName()));
    }

    @Override
    public void reset() {
      store.reset();
    }
  }
}
