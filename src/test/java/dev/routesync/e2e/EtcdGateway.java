package dev.routesync.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** etcd's v3 JSON gateway (plain HTTP on loopback): its revision, and compaction up to it. */
final class EtcdGateway {

  private static final Pattern REVISION = Pattern.compile("\"revision\":\"(\\d+)\"");
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final String url;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();

  EtcdGateway(ControlPlane cluster) {
    this.url = cluster.etcd();
  }

  /** Compacts (physically) every revision before the current one; returns that revision. */
  long compactToNow() throws IOException, InterruptedException {
    long revision = revision(post("/v3/kv/range", "{\"key\":\"AA==\"}"));
    post("/v3/kv/compaction", "{\"revision\":\"" + revision + "\",\"physical\":true}");
    return revision;
  }

  private String post(String path, String body) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url + path))
                .timeout(TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(path + " answered " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  private static long revision(String body) throws IOException {
    Matcher matcher = REVISION.matcher(body);
    if (!matcher.find()) {
      throw new IOException("no revision in " + body);
    }
    return Long.parseLong(matcher.group(1));
  }
}
