package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link Browser} harness against pages of its own, served by Vert.x on 127.0.0.1: a page that
 * polls a JSON count every 200 ms and renders it (as the status page refreshes itself), and a page
 * that loads a script from elsewhere (which a page that must work offline may not do).
 */
class BrowserTest {

  /** Polls /count every 200 ms and shows it; nothing from another host. */
  private static final String COUNTER_PAGE =
      """
      <!doctype html>
      <html><head><meta charset="utf-8"><title>counter</title></head>
      <body><h1>Backends</h1><p>count: <span id="count">?</span></p>
      <script>
        async function refresh() {
          const answer = await fetch('/count', {cache: 'no-store'});
          document.getElementById('count').textContent = (await answer.json()).count;
        }
        refresh();
        setInterval(refresh, 200);
      </script></body></html>
      """;

  /** Loads a script from a host that is not the page's own. */
  private static final String CDN_PAGE =
      """
      <!doctype html>
      <html><head><meta charset="utf-8"><title>cdn</title>
      <script src="http://example.invalid/x.js"></script></head>
      <body><p>needs a CDN</p></body></html>
      """;

  private static final Duration SHOWS = Duration.ofSeconds(5);

  private static final AtomicInteger count = new AtomicInteger();
  private static Vertx vertx;
  private static HttpServer server;
  private static Browser browser;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    Browser.assumeRunnable();
    vertx = Vertx.vertx();
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                request -> {
                  switch (request.path()) {
                    case "/count" ->
                        request
                            .response()
                            .putHeader("content-type", "application/json")
                            .end("{\"count\":" + count.get() + "}");
                    case "/" -> html(request.response(), COUNTER_PAGE);
                    case "/cdn" -> html(request.response(), CDN_PAGE);
                    default -> request.response().setStatusCode(404).end();
                  }
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
    browser = Browser.start();
  }

  private static void html(HttpServerResponse response, String page) {
    response.putHeader("content-type", "text/html; charset=utf-8").end(page);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
    if (vertx != null) {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static URI page(String path) {
    return URI.create("http://127.0.0.1:" + server.actualPort() + path);
  }

  @Test
  void aPollingPageShowsTheNewCountWithoutAReloadAndNeedsNothingFromElsewhere() {
    count.set(3);
    browser.open(page("/"));
    browser.waitFor("#count", "3", SHOWS);

    long changed = System.nanoTime();
    count.set(7);
    browser.waitFor("#count", "7", SHOWS);
    long shownMs = (System.nanoTime() - changed) / 1_000_000;

    assertThat(browser.text("p")).isEqualTo("count: 7");
    assertThat(browser.reloads()).as("main-frame navigations since open").isZero();
    assertThat(browser.external()).as("requests to other hosts").isEmpty();
    assertThat(browser.errors()).as("console errors and failed requests").isEmpty();
    browser.absent("?");
    System.out.printf("browser: the new count showed %d ms after the change%n", shownMs);
  }

  @Test
  void waitFailsWithWhatThePageShowsWhenTheCountNeverChanges() {
    count.set(3);
    browser.open(page("/"));
    browser.waitFor("#count", "3", SHOWS);

    assertThatThrownBy(() -> browser.waitFor("#count", "8", Duration.ofMillis(1500)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("#count does not contain \"8\" after 1500 ms: its text is \"3\"")
        .satisfies(e -> System.out.println("browser: a wait that fails says: " + e.getMessage()));
    assertThatThrownBy(() -> browser.absent("count: 3"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the page shows \"count: 3\"");
  }

  @Test
  void aScriptFromAnotherHostIsReportedAndBlocked() {
    browser.open(page("/cdn"));

    assertThat(browser.external()).containsExactly("http://example.invalid/x.js");
    assertThat(browser.text("p")).isEqualTo("needs a CDN");
  }

  @Test
  void aFullPageScreenshotIsAPng() throws Exception {
    count.set(5);
    browser.open(page("/"));
    browser.waitFor("#count", "5", SHOWS);
    Path png = dir.resolve("counter.png");

    browser.screenshot(png);

    byte[] bytes = Files.readAllBytes(png);
    assertThat(bytes).hasSizeGreaterThan(1000);
    assertThat(new String(bytes, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
  }
}
