package dev.routesync.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The real control plane that {@code scripts/control-plane.sh up} started: where it is, a fabric8
 * client for the test's own calls, its kubectl, and its components' restarts.
 *
 * <p>The tier runs only when {@code ROUTESYNC_E2E_DIR} names a running control plane (the script's
 * {@code env} prints it). Without it every test here is skipped with the reason, unless {@code
 * ROUTESYNC_REQUIRE_E2E=true} ({@code .ci/run} sets it), which makes the absence a failure.
 */
public final class ControlPlane {

  /** A kubectl or script call that takes longer is hung. */
  private static final Duration COMMAND_DEADLINE = Duration.ofMinutes(2);

  private static ControlPlane instance;

  private final Path dir;
  private final Path bin;
  private final Path project;

  private ControlPlane(Path dir, Path bin) {
    this.dir = dir;
    this.bin = bin;
    this.project = Path.of(System.getProperty("user.dir"));
  }

  /** The running control plane, or the test is skipped (or failed, where the tier is required). */
  public static synchronized ControlPlane require() {
    if (instance != null) {
      return instance;
    }
    String dir = System.getenv("ROUTESYNC_E2E_DIR");
    String bin = System.getenv("ROUTESYNC_E2E_BIN");
    String missing = null;
    if (dir == null || bin == null) {
      missing =
          "ROUTESYNC_E2E_DIR and ROUTESYNC_E2E_BIN are not set: start a control plane with"
              + " scripts/control-plane.sh up, then eval \"$(scripts/control-plane.sh env)\"";
    } else if (!Files.exists(Path.of(dir, "admin.kubeconfig"))) {
      missing = "no control plane at " + dir + " (scripts/control-plane.sh up)";
    }
    if (missing != null) {
      if ("true".equals(System.getenv("ROUTESYNC_REQUIRE_E2E"))) {
        fail("the real control plane tier is required here, but " + missing);
      }
      System.err.println("!!! real control plane tier SKIPPED: " + missing + " !!!");
      Assumptions.abort(missing);
    }
    instance = new ControlPlane(Path.of(dir), Path.of(bin));
    return instance;
  }

  public Path kubeconfig() {
    return dir.resolve("admin.kubeconfig");
  }

  public Path caCertificate() {
    return dir.resolve("pki/ca.crt");
  }

  /** The project's root: where {@code target/routesync.jar} and {@code daemonset/} are. */
  public Path project() {
    return project;
  }

  /**
   * The admin kubeconfig with its server moved to {@code 127.0.0.1:port} (a relay in front of the
   * API server; the server certificate names IP 127.0.0.1, so TLS passes through), written to
   * {@code file}.
   */
  public Path kubeconfigThrough(int port, Path file) throws IOException {
    String text = readKubeconfig().replace(server(), "https://127.0.0.1:" + port);
    return Files.writeString(file, text);
  }

  /** The API server's URL, as the admin kubeconfig names it. */
  public String server() {
    return Config.fromKubeconfig(readKubeconfig()).getMasterUrl().replaceAll("/$", "");
  }

  public int apiPort() {
    return Integer.parseInt(server().replaceAll(".*:", ""));
  }

  /** etcd's client URL (plain HTTP on loopback; its JSON gateway serves compaction). */
  public String etcd() {
    return System.getenv().getOrDefault("ROUTESYNC_E2E_ETCD", "http://127.0.0.1:12379");
  }

  /** A client with the cluster's admin identity, for what the tests themselves do. */
  public KubernetesClient adminClient() {
    Config config = Config.fromKubeconfig(readKubeconfig());
    config.setRequestTimeout(30_000);
    config.setConnectionTimeout(10_000);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private String readKubeconfig() {
    try {
      return Files.readString(kubeconfig());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs the control plane's kubectl as admin; fails the test on a non-zero exit. */
  public String kubectl(String... args) {
    Result result = kubectlResult(args);
    if (result.exitCode() != 0) {
      fail("kubectl " + String.join(" ", args) + " exited " + result.exitCode() + ":\n" + result);
    }
    return result.stdout();
  }

  public Result kubectlResult(String... args) {
    List<String> command = new ArrayList<>();
    command.add(bin.resolve("kubectl").toString());
    command.add("--kubeconfig=" + kubeconfig());
    command.addAll(List.of(args));
    return run(command);
  }

  /** {@code scripts/control-plane.sh ARGS}: stops, starts and restarts components. */
  public void script(String... args) {
    List<String> command = new ArrayList<>();
    command.add(project.resolve("scripts/control-plane.sh").toString());
    command.addAll(List.of(args));
    Result result = run(command);
    if (result.exitCode() != 0) {
      fail("control-plane.sh " + String.join(" ", args) + " failed:\n" + result);
    }
  }

  /** Exit code and output of one command. */
  public record Result(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  public static Result run(List<String> command) {
    try {
      Path out = Files.createTempFile("e2e-cmd", ".out");
      Path err = Files.createTempFile("e2e-cmd", ".err");
      try {
        Process process =
            new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        if (!process.waitFor(COMMAND_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
          process.destroyForcibly();
          fail(command + " did not end within " + COMMAND_DEADLINE);
        }
        return new Result(
            process.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
