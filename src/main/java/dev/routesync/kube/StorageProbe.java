package dev.routesync.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the API server can reach its storage, as its own readiness check says ({@code GET
 * /readyz?verbose}: {@code [-]etcd failed} or {@code [+]etcd ok}).
 *
 * <p>Why: with etcd down, a kube-apiserver keeps its watches open and silent, and an agent that
 * judged its connection by its watches alone would serve its table as fresh through the whole
 * outage. Nothing can change in the cluster then, but nothing that changed just before can reach
 * the agent either, and the agent cannot tell: so it says stale, after {@code --relist-after}, as
 * for a broken connection. {@code /readyz} is readable by every identity (the {@code
 * system:public-info-viewer} role), so no RBAC is needed.
 *
 * <p>Only an explicit failed etcd check counts: an error, a timeout, a server that lists no etcd
 * check, or one that is not there at all says nothing about storage (a broken connection is the
 * watches' to see).
 *
 * <p>Threading: {@link #probe} from any thread, asynchronous (at most one request in flight);
 * {@link #reachable} from any thread.
 */
public final class StorageProbe {

  private static final Logger LOG = LoggerFactory.getLogger(StorageProbe.class);

  /** What one answer says about storage. */
  enum Verdict {
    REACHABLE,
    UNREACHABLE,
    UNKNOWN
  }

  private final HttpClient http;
  private final URI readyz;
  private final Duration timeout;
  private final AtomicBoolean inFlight = new AtomicBoolean();
  private volatile boolean reachable = true;

  StorageProbe(HttpClient http, URI readyz, Duration timeout) {
    this.http = http;
    this.readyz = readyz;
    this.timeout = timeout;
  }

  /** A probe through {@code client}'s own HTTP client and credentials. */
  public static StorageProbe of(KubernetesClient client, Duration timeout) {
    String master = client.getMasterUrl().toString();
    String base = master.endsWith("/") ? master : master + "/";
    return new StorageProbe(client.getHttpClient(), URI.create(base + "readyz?verbose"), timeout);
  }

  /** False only while the API server's last answer said its etcd check failed. */
  public boolean reachable() {
    return reachable;
  }

  /** Asks once; a probe still waiting for its answer makes this one a no-op. */
  public void probe() {
    if (!inFlight.compareAndSet(false, true)) {
      return;
    }
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(readyz)
            .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .build();
    try {
      http.sendAsync(request, String.class)
          .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .whenComplete(
              (response, error) -> {
                inFlight.set(false);
                record(error == null ? verdict(response.body()) : Verdict.UNKNOWN);
              });
    } catch (RuntimeException e) {
      inFlight.set(false); // a closed client: say nothing
    }
  }

  private void record(Verdict verdict) {
    if (verdict == Verdict.UNKNOWN) {
      // No evidence either way: an outage ends only with an answer that lists etcd as ok.
      return;
    }
    boolean now = verdict == Verdict.REACHABLE;
    if (now != reachable) {
      reachable = now;
      if (now) {
        LOG.info("the API server reaches its storage (etcd) again");
      } else {
        LOG.warn(
            "the API server cannot reach its storage (etcd check failing in /readyz): its watches"
                + " are silent, so the table is flagged stale after --relist-after");
      }
    }
  }

  /**
   * Reads a {@code /readyz?verbose} body: one {@code [+]name ok} or {@code [-]name failed} a line.
   */
  static Verdict verdict(String body) {
    if (body == null) {
      return Verdict.UNKNOWN;
    }
    Verdict verdict = Verdict.UNKNOWN;
    for (String line : body.split("\n")) {
      String check = line.strip();
      // "etcd" and, on newer servers, "etcd-readiness": either failing means no storage.
      if (check.startsWith("[-]etcd")) {
        return Verdict.UNREACHABLE;
      }
      if (check.startsWith("[+]etcd")) {
        verdict = Verdict.REACHABLE;
      }
    }
    return verdict;
  }
}
