package dev.routesync.bench;

import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices;
import dev.routesync.testing.Slices.Pod;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.EndpointSubsetBuilder;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.EndpointsList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The API feed as a process of its own, so that a benchmark measures the agent and not its sender:
 * a fabric8 mock API server on loopback holding {@code --objects} labelled ({@code
 * mesh-managed=true}) Services and, per Service, one Endpoints object or one EndpointSlice of three
 * ready endpoints, and a scripted writer that changes them at the rate its parent asks for.
 *
 * <p>Two modes:
 *
 * <ul>
 *   <li>{@code crud} (default): fabric8's CRUD mock, real HTTP lists and watches (websocket for
 *       fabric8, chunked HTTP for the Python client), behind {@link MockCluster}'s loopback relay.
 *       Every watcher sees every write. Writes go through a fabric8 client in this process, one PUT
 *       each, from four writer threads (each owning a quarter of the objects, so one object's
 *       writes stay in order); the mock sustains some hundreds per second here.
 *   <li>{@code scripted}: LIST answers the current objects, WATCH upgrades to a websocket and each
 *       write is one MODIFIED event broadcast to every open watch of the kind: several thousand per
 *       second. For fabric8 clients only (websocket watches).
 * </ul>
 *
 * <p>Each write {@code seq} (1, 2, ...) sets the object's three endpoints to addresses and pod
 * names computed from {@code seq} ({@link FeedScript}), so every write is a real change and a
 * reader can tell which write a state includes. The objects a burst writes come from {@link
 * FeedScript}: deterministic for a seed.
 *
 * <p>Protocol: stdout carries only the protocol (everything else this process prints goes to
 * stderr). It prints {@code READY <url> <http-watch-url>} once the objects exist (the second URL
 * serves watches as chunked HTTP, for clients that do not use websockets: {@link HttpWatchBridge}),
 * then answers commands on stdin:
 *
 * <ul>
 *   <li>{@code burst <count> <rate/s> <seed> <skewed|uniform> [times]}: {@code count} writes paced
 *       at {@code rate} (0: as fast as it can); with {@code times}, one {@code T <seq> <index>
 *       <nanos>} line per write after the burst; then {@code DONE <count> <first-nanos>
 *       <last-nanos> <last-seq>}. Nanos are {@link System#nanoTime()}: CLOCK_MONOTONIC on Linux,
 *       one clock for every process on the machine.
 *   <li>{@code one <index>}: one write to that object, then {@code T} and {@code DONE}.
 *   <li>{@code quit}: exits at once (destroying a mock with open watches can hang it for a minute).
 * </ul>
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.routesync.bench.FeedServer \
 *     --mode crud --kind endpoints --objects 1000
 * </pre>
 */
public final class FeedServer {

  static final String NAMESPACE = "bench";
  private static final int ENDPOINTS_PER_OBJECT = 3;
  private static final int WRITERS = 4;

  private final boolean endpointsKind;
  private final int objects;
  private final PrintStream protocol;
  // crud mode
  private MockCluster cluster;
  private HttpWatchBridge bridge;
  private KubernetesClient client;
  // scripted mode
  private KubernetesMockServer scripted;
  private final Map<Integer, HasMetadata> current = new ConcurrentHashMap<>();
  private final List<WebSocket> watches = new CopyOnWriteArrayList<>();
  private long seq;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  private FeedServer(boolean endpointsKind, int objects, PrintStream protocol) {
    this.endpointsKind = endpointsKind;
    this.objects = objects;
    this.protocol = protocol;
  }

  public static void main(String[] args) throws Exception {
    // The protocol owns stdout; stray output (the mock's, fabric8's) goes to stderr.
    PrintStream protocol =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    Logger.getLogger("").setLevel(Level.WARNING);
    Logger.getLogger("io.fabric8").setLevel(Level.WARNING);
    String mode = "crud";
    String kind = "endpoints";
    int objects = 1000;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--mode" -> mode = args[i + 1];
        case "--kind" -> kind = args[i + 1];
        case "--objects" -> objects = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (!kind.equals("endpoints") && !kind.equals("endpointslices")) {
      throw new IllegalArgumentException("--kind is endpoints or endpointslices, not " + kind);
    }
    FeedServer feed = new FeedServer(kind.equals("endpoints"), objects, protocol);
    String url =
        switch (mode) {
          case "crud" -> feed.startCrud();
          case "scripted" -> feed.startScripted();
          default -> throw new IllegalArgumentException("--mode is crud or scripted, not " + mode);
        };
    protocol.println("READY " + url);
    feed.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    Runtime.getRuntime().halt(0);
  }

  private String startCrud() {
    cluster = new MockCluster();
    client = cluster.client();
    for (int i = 0; i < objects; i++) {
      client.services().inNamespace(NAMESPACE).resource(service(i)).create();
      if (endpointsKind) {
        client.endpoints().inNamespace(NAMESPACE).resource(endpoints(i, 0)).create();
      } else {
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(NAMESPACE)
            .resource(slice(i, 0))
            .create();
      }
    }
    try {
      bridge = new HttpWatchBridge(cluster.port());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    // The agent through the mock's loopback relay; the Python client through the watch bridge.
    return cluster.url() + " " + bridge.url();
  }

  private String startScripted() {
    for (int i = 0; i < objects; i++) {
      current.put(i, endpointsKind ? endpoints(i, 0) : slice(i, 0));
    }
    List<Service> services = new ArrayList<>();
    for (int i = 0; i < objects; i++) {
      services.add(service(i));
    }
    String serviceList =
        Serialization.asJson(
            new ServiceList(
                "v1",
                services,
                "ServiceList",
                new ListMetaBuilder().withResourceVersion("1").build()));
    String objectsPath = endpointsKind ? "/endpoints" : "/endpointslices";
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            boolean watch = path.contains("watch=true");
            boolean ours = path.contains(objectsPath + "?") || path.endsWith(objectsPath);
            if (watch) {
              // A silent watch for the Services; the feed's watch for the objects.
              return new MockResponse()
                  .withWebSocketUpgrade(
                      new WebSocketListener() {
                        @Override
                        public void onOpen(WebSocket socket, Response response) {
                          if (ours) {
                            watches.add(socket);
                          }
                        }

                        @Override
                        public void onClosing(WebSocket socket, int code, String reason) {
                          watches.remove(socket);
                        }

                        @Override
                        public void onFailure(WebSocket socket, Throwable t, Response response) {
                          watches.remove(socket);
                        }
                      });
            }
            String body = ours ? currentList() : serviceList;
            return new MockResponse()
                .setResponseCode(200)
                .addHeader("Content-Type", "application/json")
                .setBody(body);
          }
        };
    scripted =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            new HashMap<>(),
            dispatcher,
            /* useHttps= */ false);
    scripted.init(InetAddress.getLoopbackAddress(), 0);
    String url = "http://127.0.0.1:" + scripted.getPort();
    return url + " " + url;
  }

  private synchronized String currentList() {
    String version = String.valueOf(seq + 1);
    List<HasMetadata> items = new ArrayList<>();
    for (int i = 0; i < objects; i++) {
      items.add(current.get(i));
    }
    KubernetesResourceList<?> list =
        endpointsKind
            ? new EndpointsList(
                "v1",
                items.stream().map(Endpoints.class::cast).toList(),
                "EndpointsList",
                new ListMetaBuilder().withResourceVersion(version).build())
            : new EndpointSliceList(
                "discovery.k8s.io/v1",
                items.stream().map(EndpointSlice.class::cast).toList(),
                "EndpointSliceList",
                new ListMetaBuilder().withResourceVersion(version).build());
    return Serialization.asJson(list);
  }

  private void serve(BufferedReader in) throws Exception {
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.trim().split("\\s+");
      switch (words[0]) {
        case "burst" -> {
          FeedScript script =
              new FeedScript(objects, Long.parseLong(words[3]), words[4].equals("skewed"));
          burst(
              script.targets(Integer.parseInt(words[1])),
              Double.parseDouble(words[2]),
              words.length > 5 && words[5].equals("times"));
        }
        case "one" -> burst(new int[] {Integer.parseInt(words[1])}, 0, true);
        case "quit" -> {
          return;
        }
        case "" -> {}
        default -> protocol.println("ERROR unknown command " + words[0]);
      }
    }
  }

  private void burst(int[] targets, double rate, boolean times) throws Exception {
    long[] sent = new long[targets.length];
    long[] seqs = new long[targets.length];
    synchronized (this) {
      for (int i = 0; i < targets.length; i++) {
        seqs[i] = ++seq;
      }
    }
    long interval = rate <= 0 ? 0 : (long) (TimeUnit.SECONDS.toNanos(1) / rate);
    long start = System.nanoTime();
    // The CRUD mock's PUTs are synchronous round trips: several writers keep the pace, each
    // owning the objects index % WRITERS, so one object's writes still reach the mock in order.
    int writers = cluster != null ? WRITERS : 1;
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      running.add(
          pool.submit(
              () -> {
                for (int i = 0; i < targets.length; i++) {
                  if (targets[i] % writers != writer) {
                    continue;
                  }
                  if (interval > 0) {
                    long wait = start + i * interval - System.nanoTime();
                    if (wait > 0) {
                      LockSupport.parkNanos(wait);
                    }
                  }
                  sent[i] = write(targets[i], seqs[i]);
                }
                return null;
              }));
    }
    for (Future<?> writer : running) {
      writer.get();
    }
    if (times) {
      StringBuilder out = new StringBuilder(targets.length * 32);
      for (int i = 0; i < targets.length; i++) {
        out.append("T ")
            .append(seqs[i])
            .append(' ')
            .append(targets[i])
            .append(' ')
            .append(sent[i])
            .append('\n');
      }
      protocol.print(out);
    }
    long first = Arrays.stream(sent).min().orElse(0);
    long last = Arrays.stream(sent).max().orElse(0);
    protocol.println("DONE " + targets.length + " " + first + " " + last + " " + seq);
  }

  /** One write; returns when it was sent (nanoTime, taken just before sending). */
  private long write(int index, long next) {
    HasMetadata object = endpointsKind ? endpoints(index, next) : slice(index, next);
    long now = System.nanoTime();
    if (cluster != null) {
      if (endpointsKind) {
        client.endpoints().inNamespace(NAMESPACE).resource((Endpoints) object).update();
      } else {
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(NAMESPACE)
            .resource((EndpointSlice) object)
            .update();
      }
    } else {
      object.getMetadata().setResourceVersion(String.valueOf(next + 1));
      current.put(index, object);
      String event = "{\"type\":\"MODIFIED\",\"object\":" + Serialization.asJson(object) + "}";
      for (WebSocket socket : watches) {
        socket.send(event);
      }
    }
    return now;
  }

  static Service service(int index) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(FeedScript.name(index))
        .addToLabels(Slices.MESH_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withTargetPort(new IntOrString(8080))
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  static Endpoints endpoints(int index, long seq) {
    EndpointSubsetBuilder subset =
        new EndpointSubsetBuilder()
            .withPorts(
                new EndpointPortBuilder()
                    .withName("http")
                    .withPort(8080)
                    .withProtocol("TCP")
                    .build());
    for (int k = 0; k < ENDPOINTS_PER_OBJECT; k++) {
      subset.addToAddresses(
          new EndpointAddressBuilder()
              .withIp(FeedScript.ip(index, seq, k))
              .withNodeName("node-a")
              .withTargetRef(
                  new ObjectReferenceBuilder()
                      .withKind("Pod")
                      .withNamespace(NAMESPACE)
                      .withName(FeedScript.pod(seq, k))
                      .build())
              .build());
    }
    return new EndpointsBuilder()
        .withNewMetadata()
        .withNamespace(NAMESPACE)
        .withName(FeedScript.name(index))
        .addToLabels(Slices.MESH_LABEL, "true")
        .addToAnnotations(
            "endpoints.kubernetes.io/last-change-trigger-time", Instant.now().toString())
        .endMetadata()
        .withSubsets(subset.build())
        .build();
  }

  static EndpointSlice slice(int index, long seq) {
    List<Pod> pods = new ArrayList<>();
    for (int k = 0; k < ENDPOINTS_PER_OBJECT; k++) {
      pods.add(Pod.ready(FeedScript.pod(seq, k), FeedScript.ip(index, seq, k)));
    }
    String service = FeedScript.name(index);
    return new EndpointSliceBuilder(
            Slices.slice(NAMESPACE, service + "-x", service, true, 8080, pods))
        .build();
  }
}
