package dev.routesync.kube;

import dev.routesync.kube.decode.FastKubernetesSerialization;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Utils;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/** Builds the fabric8 client the agent watches with, on the agent's own Vert.x instance. */
public final class KubeClients {

  private KubeClients() {}

  /**
   * Credentials the fabric8 way: an explicit kubeconfig file, or else in-cluster service account,
   * {@code KUBECONFIG}, {@code ~/.kube/config}.
   */
  public static Config load(Optional<Path> kubeconfig) {
    if (kubeconfig.isEmpty()) {
      return Config.autoConfigure(null);
    }
    Path path = kubeconfig.get();
    try {
      return Config.fromKubeconfig(null, Files.readString(path), path.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * The files {@code KUBECONFIG} names (fabric8 reads the system property {@code kubeconfig} first,
   * as its discovery does), in order; empty when it is not set. fabric8 skips the ones that do not
   * exist, and falls back to defaults (in-cluster, then {@code https://kubernetes.default.svc})
   * when none does.
   */
  public static List<Path> environmentKubeconfigs() {
    String value = Utils.getSystemPropertyOrEnvVar(Config.KUBERNETES_KUBECONFIG_FILE);
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return Arrays.stream(value.split(File.pathSeparator))
        .filter(name -> !name.isBlank())
        .map(Path::of)
        .toList();
  }

  /**
   * Fails as reading an explicit kubeconfig would when none of {@code files} (from {@code
   * KUBECONFIG}) can be read: fabric8 would otherwise fall back to its defaults and the agent would
   * retry an API server that is not there, forever, for a typo.
   */
  public static void requireOneReadable(List<Path> files) throws IOException {
    IOException first = null;
    for (Path file : files) {
      try (var channel = Files.newByteChannel(file)) {
        return;
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * A client sharing {@code vertx}, reading the endpoint kinds' lists and watch events straight
   * from their JSON ({@link FastKubernetesSerialization}), with fabric8's informer work on {@code
   * context}. Watch reconnects start at the supervisor's minimum backoff, and failed requests are
   * not retried inside fabric8: the {@link dev.routesync.kube.watch.ResourceWatch} owns retries
   * (with jitter), so a failing list surfaces at once instead of after fabric8's own retry budget.
   */
  public static KubernetesClient create(
      Vertx vertx, Config config, WatchSettings settings, Context context) {
    Config tuned =
        new ConfigBuilder(config)
            .withWatchReconnectInterval((int) settings.backoffMin().toMillis())
            .withRequestRetryBackoffLimit(0)
            .build();
    return new KubernetesClientBuilder()
        .withConfig(tuned)
        .withHttpClientFactory(new NamedClients(vertx))
        .withKubernetesSerialization(new FastKubernetesSerialization())
        .withTaskExecutor(onContext(context))
        .build();
  }

  /**
   * fabric8's task executor: its informer work (each watch message's decode, the cache update, the
   * event handlers) runs on the sync context, one task at a time, as it did on a thread of its own
   * ({@code kube-events}). That thread cost a wake-up on each side of each hand-off: the event loop
   * that read a message woke it, and it woke the sync context's loop with the result (about 20% of
   * the agent's CPU per watch event, {@code benchmarks/process-cpu.sh}). fabric8's default, a
   * cached pool behind a {@code SynchronousQueue}, cost more still. The tasks never block.
   */
  static Executor onContext(Context context) {
    return task -> context.runOnContext(ignored -> task.run());
  }

  /**
   * fabric8 opens two Vert.x clients, for requests and for watch websockets. Named, their Vert.x
   * metrics are told apart ({@code client_name}); unnamed, both registered the same gauges, and
   * Micrometer warned at every start and merged their counts. Requests ask for compressed answers.
   */
  private static final class NamedClients extends Vertx5HttpClientFactory {

    NamedClients(Vertx vertx) {
      super(vertx);
    }

    @Override
    protected void additionalConfig(
        WebClientOptions requests, WebSocketClientOptions watches, PoolOptions pool) {
      requests.setMetricsName("kubernetes-api");
      watches.setMetricsName("kubernetes-watch");
      // Accept-Encoding: gzip, as client-go asks: the API server compresses a list answer over
      // 128 KiB (a page of 50 slices of 100 endpoints is ~1.4 MB of JSON), which is then fewer
      // bytes to decrypt, and to send, for every node at once after a restart.
      requests.setDecompressionSupported(true);
    }
  }
}
