package dev.routesync.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real browser for tests: Debian's headless Chromium, driven by {@code playwright-core} through
 * {@code interop/status-page/driver.mjs} (a Node subprocess that answers one line per command). One
 * page; every method is one command, bounded by a timeout, and fails the calling test with the
 * driver's reason when the command fails.
 *
 * <p>Needs {@code node}, {@code npm ci --prefix interop/status-page} and Chromium ({@code apt-get
 * install chromium}; {@code CHROMIUM} names another binary). Without them {@link #assumeRunnable}
 * skips the test, loudly; with {@code ROUTESYNC_REQUIRE_BROWSER=true} (CI) it fails it.
 */
public final class Browser implements AutoCloseable {

  /** The npm package directory (relative to the project root, surefire's working directory). */
  public static final Path PACKAGE = Path.of("interop", "status-page");

  /** Set by CI ({@code .ci/run}): the browser must run here, so a missing one fails the test. */
  public static final String REQUIRE_VARIABLE = "ROUTESYNC_REQUIRE_BROWSER";

  /** The driver's stderr (Node's and Playwright's complaints), kept for a failure message. */
  public static final Path LOG = Path.of("target", "browser-driver.log");

  /** Node's start and Chromium's launch on a loaded 2-core machine (the driver allows 30 s). */
  private static final Duration LAUNCH = Duration.ofSeconds(40);

  /** The driver bounds every command but {@code wait} by 15 s + 5 s; this is beyond both. */
  private static final Duration COMMAND = Duration.ofSeconds(25);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Process process;
  private final Thread reader;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

  private Browser(Process process) {
    this.process = process;
    this.reader = new Thread(this::read, "browser-driver-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts the driver and waits until Chromium runs; call {@link #assumeRunnable} first. */
  public static Browser start() throws IOException, InterruptedException {
    Files.createDirectories(LOG.toAbsolutePath().getParent());
    ProcessBuilder builder =
        new ProcessBuilder("node", PACKAGE.resolve("driver.mjs").toString())
            .redirectError(LOG.toFile());
    builder.environment().put("CHROMIUM", chromium());
    Browser browser = new Browser(builder.start());
    try {
      String ready = browser.answer("launch", LAUNCH);
      System.out.println("browser: " + ready);
    } catch (RuntimeException | Error e) {
      browser.close();
      throw e;
    }
    return browser;
  }

  /** Opens {@code url}; resets {@link #reloads}, {@link #errors} and {@link #external}. */
  public void open(URI url) {
    command(COMMAND, "goto", url.toString());
  }

  /** The first element matching the CSS {@code selector}'s text, as the user sees it. */
  public String text(String selector) {
    return unescape(command(COMMAND, "text", selector));
  }

  /**
   * Waits, without reloading, until the element's text contains {@code substring}; fails with what
   * it shows instead.
   */
  public void waitFor(String selector, String substring, Duration timeout) {
    command(timeout.plus(COMMAND), "wait", selector, substring, String.valueOf(timeout.toMillis()));
  }

  /** Fails when the page's whole text contains {@code substring}, with where it shows. */
  public void absent(String substring) {
    command(COMMAND, "absent", substring);
  }

  /** A full-page PNG at {@code file}. */
  public void screenshot(Path file) {
    command(COMMAND, "screenshot", file.toAbsolutePath().toString());
  }

  /** Main-frame navigations since {@link #open}: 0 means the page updated itself in place. */
  public int reloads() {
    return Integer.parseInt(command(COMMAND, "reloads"));
  }

  /** Console errors, uncaught page errors and failed requests (own host) since {@link #open}. */
  public List<String> errors() {
    return JSON.readValue(command(COMMAND, "errors"), new TypeReference<List<String>>() {});
  }

  /** URLs the page requested from any other host than its own (blocked) since {@link #open}. */
  public List<String> external() {
    return JSON.readValue(command(COMMAND, "external"), new TypeReference<List<String>>() {});
  }

  /** Sends one command (as a JSON array: arguments may hold spaces) and returns what follows ok. */
  private String command(Duration within, String... words) {
    try {
      OutputStream in = process.getOutputStream();
      in.write((JSON.writeValueAsString(words) + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      Assertions.fail("browser driver: cannot send " + words[0] + ": " + e + "\n" + describe());
    }
    return answer(String.join(" ", words), within);
  }

  private String answer(String what, Duration within) {
    String line;
    try {
      line = answers.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for the browser: " + what, e);
    }
    if (line == null) {
      return Assertions.fail("browser: no answer within " + within + " to " + what + describe());
    }
    if (line.equals("ok") || line.startsWith("ok ")) {
      return line.length() > 2 ? line.substring(3) : "";
    }
    return Assertions.fail(
        "browser: " + what + ": " + line.replaceFirst("^fail ", "") + describe());
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        answers.add(line);
      }
    } catch (IOException e) {
      // The process was destroyed: nothing more to read.
    }
  }

  /** For a failure message: whether the driver runs, and its stderr's tail. */
  private String describe() {
    String tail;
    try {
      List<String> err = Files.readAllLines(LOG, StandardCharsets.UTF_8);
      tail = String.join("\n", err.subList(Math.max(0, err.size() - 30), err.size()));
    } catch (IOException e) {
      tail = "(unreadable: " + e.getMessage() + ")";
    }
    String state = process.isAlive() ? "driver running" : "driver exited " + process.exitValue();
    return tail.isBlank() ? " (" + state + ")" : " (" + state + "; its stderr:\n" + tail + ")";
  }

  private static String unescape(String escaped) {
    StringBuilder out = new StringBuilder(escaped.length());
    for (int i = 0; i < escaped.length(); i++) {
      char c = escaped.charAt(i);
      if (c == '\\' && i + 1 < escaped.length()) {
        char next = escaped.charAt(++i);
        out.append(next == 'n' ? '\n' : next == 'r' ? '\r' : next);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static String chromium() {
    String named = System.getenv("CHROMIUM");
    return named == null || named.isBlank() ? "/usr/bin/chromium" : named;
  }

  /**
   * Why this machine cannot run the browser, or empty when it can: {@code node} must run, {@code
   * playwright-core} be installed and Chromium be there.
   */
  public static Optional<String> missing() {
    if (!Files.isDirectory(PACKAGE.resolve("node_modules/playwright-core"))) {
      return Optional.of(
          PACKAGE.toAbsolutePath().resolve("node_modules")
              + " lacks playwright-core: run `npm ci --prefix interop/status-page --ignore-scripts`");
    }
    if (!Files.isExecutable(Path.of(chromium()))) {
      return Optional.of(
          chromium() + " is not there: `apt-get install chromium` (or set CHROMIUM)");
    }
    try {
      Process node =
          new ProcessBuilder("node", "--version")
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      if (!node.waitFor(20, TimeUnit.SECONDS)) {
        node.destroyForcibly();
        return Optional.of("`node --version` did not finish within 20 s");
      }
      String version = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return node.exitValue() == 0
          ? Optional.empty()
          : Optional.of("`node --version` exited " + node.exitValue() + ": " + version.trim());
    } catch (IOException e) {
      return Optional.of("cannot run `node`: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while checking `node`");
    }
  }

  /**
   * Aborts the calling test when this machine cannot run the browser ({@link #missing}), loudly;
   * fails it instead when {@value #REQUIRE_VARIABLE} is {@code true} (CI).
   */
  public static void assumeRunnable() {
    Optional<String> missing = missing();
    if (missing.isEmpty()) {
      return;
    }
    if ("true".equalsIgnoreCase(System.getenv(REQUIRE_VARIABLE))) {
      Assertions.fail(
          "\n\n*** headless browser CANNOT RUN, and "
              + REQUIRE_VARIABLE
              + "=true: "
              + missing.get()
              + " ***\n");
    }
    System.err.println(
        "\n!!! browser test SKIPPED: "
            + missing.get()
            + " (set "
            + REQUIRE_VARIABLE
            + "=true to make this a failure) !!!\n");
    Assumptions.abort("headless browser not installed: " + missing.get());
  }

  /** Closes the driver's stdin (it closes Chromium and exits), then destroys it if it lingers. */
  @Override
  public void close() throws IOException, InterruptedException {
    // Chromium's processes are the driver's children: should the driver be killed rather than
    // exit, they would outlive it, so they are remembered now and ended after.
    List<ProcessHandle> children = process.descendants().toList();
    try {
      LineProcess.stop(process, reader);
    } finally {
      children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
  }
}
