package dev.routesync.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kube-apiserver's own record of the requests it served: at {@code -v=3} its {@code httplog}
 * writes one line per request when it ends, with the full request URI. A watch is logged when it
 * ends (a closed connection, a timeout, an in-stream error), so this shows the query a client
 * watched with, {@code allowWatchBookmarks} and {@code resourceVersion} included, which TLS hides
 * from a relay. The verbosity is raised at run time ({@code PUT /debug/flags/v}), so the control
 * plane script keeps {@code --v=1}; a restarted API server is back at 1 and needs it again.
 */
final class ApiServerLog {

  private static final Pattern WATCH = Pattern.compile("\"HTTP\" verb=\"WATCH\" URI=\"([^\"]+)\"");
  private static final Pattern LIST = Pattern.compile("\"HTTP\" verb=\"LIST\" URI=\"([^\"]+)\"");
  private static final Pattern RESOURCE_VERSION = Pattern.compile("[?&]resourceVersion=(\\d+)");

  private final ControlPlane cluster;

  ApiServerLog(ControlPlane cluster) {
    this.cluster = cluster;
  }

  /** Logs every request from now on (until the API server restarts). */
  void logRequests() {
    Path run = cluster.kubeconfig().getParent();
    ControlPlane.Result result =
        ControlPlane.run(
            List.of(
                "curl",
                "-sS",
                "--max-time",
                "10",
                "--cacert",
                cluster.caCertificate().toString(),
                "--cert",
                run.resolve("pki/admin.crt").toString(),
                "--key",
                run.resolve("pki/admin.key").toString(),
                "-X",
                "PUT",
                "--data",
                "3",
                cluster.server() + "/debug/flags/v"));
    assertThat(result.stdout()).as("%s", result).contains("verbosity to 3");
  }

  /** Where the log ends now: {@link #watches} from here on sees only later requests. */
  long mark() throws IOException {
    return Files.size(file());
  }

  /** The URIs of the ended watches on EndpointSlices in {@code namespace}, logged after mark. */
  List<String> watches(long mark, String namespace) throws IOException {
    return sliceRequests(WATCH, mark, namespace);
  }

  /** The URIs of the lists of EndpointSlices in {@code namespace}, logged after mark. */
  List<String> lists(long mark, String namespace) throws IOException {
    return sliceRequests(LIST, mark, namespace);
  }

  private List<String> sliceRequests(Pattern verb, long mark, String namespace) throws IOException {
    byte[] all = Files.readAllBytes(file());
    String text =
        new String(
            all,
            (int) Math.min(mark, all.length),
            (int) Math.max(0, all.length - mark),
            StandardCharsets.UTF_8);
    List<String> uris = new ArrayList<>();
    Matcher matcher = verb.matcher(text);
    while (matcher.find()) {
      String uri = matcher.group(1);
      if (uri.contains("/namespaces/" + namespace + "/endpointslices")) {
        uris.add(uri);
      }
    }
    return uris;
  }

  /** The {@code resourceVersion} a watch URI resumed from. */
  static long resourceVersion(String uri) {
    Matcher matcher = RESOURCE_VERSION.matcher(uri);
    assertThat(matcher.find()).as("a resourceVersion in %s", uri).isTrue();
    return Long.parseLong(matcher.group(1));
  }

  private Path file() {
    return cluster.kubeconfig().getParent().resolve("logs/kube-apiserver.log");
  }
}
