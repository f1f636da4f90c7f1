package dev.routesync.e2e;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Each test's own namespace on the real control plane, and the admin client the test works with.
 * Before each test it requires the control plane (skipped, or failed where the tier is required, as
 * {@link ControlPlane#require()} decides) and creates the namespace; after it, whatever the
 * outcome, it deletes the namespace without waiting ({@link Workloads#deleteNamespace}) and closes
 * the client.
 *
 * <p>Register it on an instance field, {@code @RegisterExtension final ClusterNamespace ns = new
 * ClusterNamespace("churn");}. A test that must make its namespace itself (a prefix per test, or
 * only once the control plane is in some state) registers {@link #createdByTest()} and calls {@link
 * #create}. JUnit calls this after a test class's own {@code @AfterEach} methods, so those can
 * still use the namespace and the client (RestartsIT starts the components it killed first, or the
 * deletion could not reach the API server).
 */
final class ClusterNamespace implements BeforeEachCallback, AfterEachCallback {

  /**
   * junit-platform.properties bounds every lifecycle method at 120 s, but not an extension's
   * callbacks (junit5 issue 2037): the same bound for the namespace's creation and deletion, so a
   * hung API server call fails the test instead of hanging the build.
   */
  private static final Duration LIFECYCLE = Duration.ofSeconds(120);

  private final String prefix;
  private ControlPlane cluster;
  private KubernetesClient client;
  private String name;

  /** A namespace named {@code prefix-<random>}, created before each test. */
  ClusterNamespace(String prefix) {
    this.prefix = prefix;
  }

  private ClusterNamespace() {
    this.prefix = null;
  }

  /** No namespace until the test calls {@link #create}; deleted after it all the same. */
  static ClusterNamespace createdByTest() {
    return new ClusterNamespace();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    cluster = ControlPlane.require();
    client = cluster.adminClient();
    if (prefix != null) {
      assertTimeoutPreemptively(LIFECYCLE, () -> create(prefix));
    }
  }

  /** Creates the test's namespace, {@code prefix-<random>}, and returns its name. */
  String create(String prefix) {
    if (name != null) {
      throw new IllegalStateException("the test's namespace exists already: " + name);
    }
    name = Workloads.namespace(client, prefix);
    return name;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (client == null) {
      return; // the control plane was missing: nothing was made
    }
    try {
      if (name != null) {
        assertTimeoutPreemptively(LIFECYCLE, () -> Workloads.deleteNamespace(client, name));
      }
    } finally {
      client.close();
    }
  }

  ControlPlane cluster() {
    return cluster;
  }

  KubernetesClient client() {
    return client;
  }

  /** The namespace's name; null until {@link #create} where the test creates it. */
  String name() {
    return name;
  }
}
