package dev.routesync.testing;

import dev.routesync.demo.NodeIndex;
import dev.routesync.demo.WatchBookmarks;
import dev.routesync.kube.KubeClients;
import dev.routesync.kube.WatchSettings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * fabric8's mock API server in CRUD mode (real HTTP, real watches) on loopback, with a client for
 * the test to write objects. Its dispatcher can be told to answer the next watch with an in-stream
 * 410 Gone, as a real API server does when a watch's resourceVersion is too old.
 *
 * <p>Pods are indexed by node, as the real API server indexes them: a list or watch of Pods with
 * {@code fieldSelector=spec.nodeName=<node>} sees only that node's Pods (see {@link NodeIndex}).
 * fabric8's own mock ignores that field selector.
 *
 * <p>On request ({@link #sendBookmarksEvery}) its watches get BOOKMARK events, which the CRUD mock
 * never sends and a real API server sends about once a minute.
 *
 * <p>On request ({@link #withFaithfulWatchResume}) a watch that starts from a resourceVersion is
 * not sent the replay of what its client listed, as from a real API server; see {@link
 * WatchResumes}.
 */
public final class MockCluster implements AutoCloseable {

  private static final String GONE_EVENT =
      "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
          + "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410,"
          + "\"message\":\"too old resource version\"}}";

  /** What the API server answers a service account without list on services. */
  private static final String FORBIDDEN_SERVICES =
      "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
          + "\"message\":\"services is forbidden: User \\\"system:serviceaccount:routesync:routesync\\\""
          + " cannot list resource \\\"services\\\" in API group \\\"\\\" at the cluster scope\","
          + "\"reason\":\"Forbidden\",\"details\":{\"kind\":\"services\"},\"code\":403}";

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final TcpProxy front;
  private final AtomicBoolean goneOnNextWatch = new AtomicBoolean();
  private final AtomicInteger goneSent = new AtomicInteger();
  private final AtomicBoolean servicesForbidden = new AtomicBoolean();
  private final AtomicBoolean storageDown = new AtomicBoolean();
  private final ExpiredResumes resumes; // null: the mock's own watches
  private final WatchBookmarks bookmarks;
  private final WatchResumes watchResumes = new WatchResumes();
  private volatile boolean faithfulWatchResume;
  // The CRUD mock answers every list whole; a real API server pages it when asked (limit).
  private final PagedLists paged = new PagedLists();
  // Writes through the API and createAll: a list cut from a snapshot is current while it stands.
  private final AtomicLong writes = new AtomicLong();
  private final BulkCreate bulk;

  public MockCluster() {
    this(false);
  }

  /**
   * A mock whose watches are as faithful about deletions as a real API server's: a watch resuming
   * from before a deletion it cannot replay is answered 410 Gone (see {@link ExpiredResumes}).
   * Tests that make deletions while a client lists or reconnects need it; without it those
   * deletions are never sent and stay as ghosts on any client.
   */
  public static MockCluster expiringResumes() {
    return new MockCluster(true);
  }

  private MockCluster(boolean expireResumes) {
    KubernetesMixedDispatcher crud = new KubernetesMixedDispatcher(new HashMap<>());
    KubernetesCrudDispatcher store = NodeIndex.install(crud);
    bulk = new BulkCreate(store);
    bookmarks = new WatchBookmarks(store::requestResourceVersion);
    resumes = expireResumes ? new ExpiredResumes(store) : null;
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            if (!"GET".equalsIgnoreCase(request.getMethod())) {
              writes.incrementAndGet();
            }
            if (request.getPath().startsWith("/readyz")) {
              return readyz();
            }
            if (servicesForbidden.get() && isServicesRequest(request.getPath())) {
              return new MockResponse().setResponseCode(403).setBody(FORBIDDEN_SERVICES);
            }
            // Only the EndpointSlice watch: the agent's Services watch reconnects too, and must
            // not take the 410 meant for the slices.
            if (request.getPath().contains("watch=true")
                && request.getPath().contains("/endpointslices")
                && goneOnNextWatch.compareAndSet(true, false)) {
              goneSent.incrementAndGet();
              return new MockResponse()
                  .withWebSocketUpgrade(
                      new WebSocketListener() {
                        @Override
                        public void onOpen(
                            WebSocket socket, io.fabric8.mockwebserver.http.Response r) {
                          socket.send(GONE_EVENT);
                        }
                      });
            }
            MockResponse response =
                resumes == null
                    ? paged.dispatch(request, crud::dispatch)
                    // Paged outside: the whole list is stamped with its point, then paged.
                    : paged.dispatch(request, r -> resumes.dispatch(r, crud::dispatch));
            MockResponse tracked = bookmarks.track(request, response);
            // Outermost: the bookmarks' tracking needs the mock's own listener to wrap.
            return faithfulWatchResume ? watchResumes.filter(request, tracked) : tracked;
          }

          @Override
          public void shutdown() {
            crud.shutdown();
          }
        };
    server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            new HashMap<>(),
            dispatcher,
            /* useHttps= */ false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    // The mock's one event loop can block for ~10 s when a watch connection is cut under it (its
    // WatchEventsListener.onFailure waits for its sender to stop; STACK-NOTES: "can deadlock the
    // mock"). Tests cut connections on purpose, so the test's own writes wait that out instead of
    // failing at fabric8's default 10 s request timeout (seen once in five CI runs).
    client =
        server.createClient(
            builder -> builder.editOrNewConfig().withRequestTimeout(30_000).endConfig());
    try {
      front = new TcpProxy(server.getPort());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * From now on, a watch from resourceVersion N (not empty, not "0") gets no ADDED event for an
   * object at or before N, as from a real API server: the mock's own watches replay every current
   * object as ADDED, so a client's list-then-watch decodes each object twice. Events after N pass.
   * Returns this mock, to be called where it is made, before any watch (also after {@link
   * #expiringResumes()}).
   *
   * <p>Off by default: tests that replace the mock by a new, empty one on the same port (whose
   * versions start again from 1) have clients resuming from a version the new mock only reaches
   * later, and with this on they would not be sent the new mock's objects. A real API server's
   * versions never go back.
   */
  public MockCluster withFaithfulWatchResume() {
    faithfulWatchResume = true;
    return this;
  }

  /**
   * First list pages are cut from the last whole list of the same query while nothing has been
   * written since ({@link PagedLists#reuseUnchanged}), as a real API server serves pages from its
   * watch cache, instead of the mock building (and the pager parsing) the whole list for each one.
   * For lists of tens of thousands of objects, which otherwise outlast a client's request timeout.
   * Returns this mock.
   */
  public MockCluster reusingUnchangedLists() {
    paged.reuseUnchanged(writes::get);
    return this;
  }

  /**
   * ADDED events not sent because their watch resumed after them ({@link
   * #withFaithfulWatchResume}).
   */
  public int replaysDropped() {
    return watchResumes.replaysDropped();
  }

  /** The server's own port (for a test's own proxy in front of it). */
  public int port() {
    return server.getPort();
  }

  /**
   * The URL agents should use: a proxy in front of the server, so closing drops their connections
   * abruptly. (A watch the client closes cleanly can block the mock's event loop for a minute in
   * {@code WatchEventsListener.onClosed}; an abrupt drop does not.)
   */
  public String url() {
    return front.url();
  }

  public KubernetesClient client() {
    return client;
  }

  /**
   * A client of this cluster made as the agent makes it ({@code KubeClients.create}, the default
   * watch settings), with fabric8's informer work on {@code syncContext}. The caller closes it
   * after this cluster (see {@link #url}).
   */
  public KubernetesClient agentClient(Vertx vertx, io.vertx.core.Context syncContext) {
    return KubeClients.create(
        vertx,
        new ConfigBuilder(Config.empty())
            .withMasterUrl(url())
            .withRequestTimeout(5000)
            .withConnectionTimeout(2000)
            .build(),
        WatchSettings.of(List.of(), WatchSettings.DEFAULT_LABEL_SELECTOR),
        syncContext);
  }

  /** The next EndpointSlice watch request gets a websocket whose first event is ERROR 410 Gone. */
  public void answerNextWatchWithGone() {
    goneOnNextWatch.set(true);
  }

  /**
   * Answers every Services list and watch with 403 Forbidden while {@code forbidden}, as the API
   * server does for an agent whose ClusterRole lacks {@code services}.
   */
  public void forbidServices(boolean forbidden) {
    servicesForbidden.set(forbidden);
  }

  /**
   * While {@code down}, the API server cannot reach etcd, as a real one behaves then: {@code
   * /readyz} fails its etcd check, and its watches stay open but send nothing (the mock's send
   * nothing anyway until something is written, which a test then does not do).
   */
  public void storageDown(boolean down) {
    storageDown.set(down);
  }

  /** {@code GET /readyz?verbose} as kube-apiserver answers it, abridged to its storage checks. */
  private MockResponse readyz() {
    return storageDown.get()
        ? new MockResponse()
            .setResponseCode(500)
            .setBody(
                "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n"
                    + "[-]etcd-readiness failed: reason withheld\nreadyz check failed\n")
        : new MockResponse()
            .setResponseCode(200)
            .setBody(
                "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\nreadyz check passed\n");
  }

  private static boolean isServicesRequest(String path) {
    String resource = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    return resource.equals("/api/v1/services")
        || resource.matches("/api/v1/namespaces/[^/]+/services");
  }

  /**
   * From now on every open watch gets a BOOKMARK every {@code period}, as from a real API server
   * (about once a minute there), each with a newer resourceVersion; see {@link WatchBookmarks}.
   */
  public void sendBookmarksEvery(Duration period) {
    bookmarks.every(period);
  }

  /** No more bookmarks: the mock's own behaviour, and a hung server's. */
  public void stopBookmarks() {
    bookmarks.stop();
  }

  /** Bookmarks sent so far, over all watches. */
  public int bookmarksSent() {
    return bookmarks.sent();
  }

  /** List pages served to clients that asked for pages ({@link PagedLists}). */
  public int listPagesServed() {
    return paged.pagesServed();
  }

  /** Of those, pages listed on from a continue token. */
  public int continuedListPages() {
    return paged.continuedPages();
  }

  /** Whole lists the mock built for a first page, not cut from an unchanged one. */
  public int wholeListsParsed() {
    return paged.wholeListsParsed();
  }

  public int goneEventsSent() {
    return goneSent.get();
  }

  /** Watches answered 410 for resuming from before a deletion ({@link #expiringResumes}). */
  public int expiredResumes() {
    return resumes == null ? 0 : resumes.expired();
  }

  public void apply(EndpointSlice slice) {
    client.resource(slice).createOr(NonDeletingOperation::update);
  }

  /**
   * Deletes at once: the CRUD mock removes the object before it answers the DELETE. (Asking fabric8
   * to wait for the deletion opens a watch that a loaded machine let time out in 5 s.)
   */
  public void delete(EndpointSlice slice) {
    client.resource(slice).delete();
  }

  public void apply(Service service) {
    client.resource(service).createOr(NonDeletingOperation::update);
  }

  /** Deletes at once, as {@link #delete(EndpointSlice)} does. */
  public void delete(Service service) {
    client.resource(service).delete();
  }

  /**
   * Creates every object as a POST would (same uids, resourceVersions, indexes and watch events),
   * without a request per object: for seeding tens of thousands (see {@link BulkCreate}).
   *
   * @return the uid the mock gave each object, in order
   */
  public List<String> createAll(Collection<? extends HasMetadata> objects) {
    writes.incrementAndGet();
    return bulk.createAll(objects);
  }

  public List<Service> services() {
    return client.services().inAnyNamespace().list().getItems();
  }

  public List<EndpointSlice> slices() {
    return client.discovery().v1().endpointSlices().inAnyNamespace().list().getItems();
  }

  /**
   * Drops every agent connection abruptly, then stops the server. Close before the agent.
   *
   * <p>The server is destroyed on a background thread: a watch the agent closed cleanly earlier (an
   * old generation replaced by a relist) may still hold one of the mock's event loops in {@code
   * WatchEventsListener.onClosed} for up to a minute, and {@code destroy()} would wait for it. That
   * is the mock's deadlock, not the agent's; the test has its verdict by then.
   */
  @Override
  public void close() throws Exception {
    bookmarks.close();
    front.close();
    client.close();
    Thread destroyer =
        new Thread(
            () -> {
              try {
                server.destroy();
              } catch (RuntimeException e) {
                // See above: nothing left to verify.
              }
            },
            "mock-destroy");
    destroyer.setDaemon(true);
    destroyer.start();
  }
}
