package dev.routesync;

import static dev.routesync.testing.Slices.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.config.DebugListener;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.Browser;
import dev.routesync.testing.MockCluster;
import dev.routesync.testing.Slices.Pod;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The status page in a real browser (Debian's Chromium, headless, driven by playwright-core; see
 * {@link Browser}) against a real agent on the CRUD mock: its Services appear, a Service scaled up
 * shows its new count without a reload, an unlabelled Service never appears, and the page loads
 * nothing from anywhere else.
 */
@Timeout(120)
class StatusPageBrowserTest {

  private static final Duration SHOWS = Duration.ofSeconds(10);

  @BeforeAll
  static void browserIsHere() {
    Browser.assumeRunnable();
  }

  @Test
  void showsTheTableAndFollowsItWithoutAReload() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      cluster.apply(slice("shop", "cart-abc", "cart", true, 8080, pods("cart", 2)));
      cluster.apply(slice("shop", "hidden-abc", "hidden", false, 8080, pods("hidden", 3)));
      int port = freePort();
      try (AgentHarness agent =
              AgentHarness.startWith(
                  cluster.url(), c -> c.withDebug(new DebugListener("127.0.0.1", port)), 0);
          Browser browser = Browser.start()) {
        assertThat(agent.agent().debugPort()).isEqualTo(port);
        browser.open(URI.create("http://127.0.0.1:" + port + "/status"));
        browser.waitFor("#trust", "SYNCED", SHOWS);
        browser.waitFor("#services tr[data-key='shop/cart'] .ready", "2", SHOWS);

        cluster.apply(slice("shop", "cart-abc", "cart", true, 8080, pods("cart", 5)));
        browser.waitFor("#services tr[data-key='shop/cart'] .ready", "5", SHOWS);

        assertThat(browser.reloads()).as("navigations since the page was opened").isZero();
        browser.absent("shop/hidden");
        assertThat(browser.external()).isEmpty();
        assertThat(browser.errors()).isEmpty();
        browser.screenshot(Path.of("target", "status-page.png"));
      }
    }
  }

  private static List<Pod> pods(String service, int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> Pod.ready(service + "-" + i, "10.1.0." + (i + 1)))
        .toList();
  }

  // The debug listener's port 0 means "off", so the test picks a free one.
  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
