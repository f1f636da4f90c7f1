package dev.routesync;

import dev.routesync.config.AgentConfig;
import dev.routesync.kube.KubeClients;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.startup.Reasons;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The agent's Kubernetes credentials, loaded or still loading. fabric8 parses a kubeconfig in a few
 * hundred ms of a cold JVM, so {@link #begin} loads it on a thread of its own while the agent
 * restores its table and builds its servers; the agent awaits it before its socket listens.
 *
 * @param kubeconfigs the files the credentials come from (--kubeconfig, or KUBECONFIG's)
 */
record KubeConfigLoading(List<Path> kubeconfigs, CompletableFuture<Config> loading) {

  KubeConfigLoading {
    kubeconfigs = List.copyOf(kubeconfigs);
  }

  /** Starts loading the credentials that the configuration names, on a daemon thread. */
  static KubeConfigLoading begin(AgentConfig config) {
    // KUBECONFIG is checked as --kubeconfig is: fabric8 would skip a missing file silently.
    List<Path> kubeconfigs =
        config.kubeconfig().map(List::of).orElseGet(KubeClients::environmentKubeconfigs);
    CompletableFuture<Config> loading = new CompletableFuture<>();
    Thread loader =
        new Thread(
            () -> {
              try {
                loading.complete(load(config, kubeconfigs));
              } catch (RuntimeException e) { // BadConfigurationException among them
                loading.completeExceptionally(e);
              }
            },
            "routesync-kubeconfig");
    loader.setDaemon(true);
    loader.start();
    return new KubeConfigLoading(kubeconfigs, loading);
  }

  /** Credentials given as they are (tests, the demo). */
  static KubeConfigLoading loaded(AgentConfig config, Config kubeConfig) {
    return new KubeConfigLoading(
        config.kubeconfig().stream().toList(), CompletableFuture.completedFuture(kubeConfig));
  }

  /** Waits for the load; its failure (a {@link BadConfigurationException}), if it failed. */
  Optional<Throwable> failure() {
    try {
      loading.join();
      return Optional.empty();
    } catch (CompletionException e) {
      return Optional.of(e.getCause() == null ? e : e.getCause());
    }
  }

  /** The loaded credentials; call after {@link #failure()} found none. */
  Config config() {
    return loading.join();
  }

  private static Config load(AgentConfig config, List<Path> kubeconfigs)
      throws BadConfigurationException {
    try {
      if (config.kubeconfig().isEmpty()) {
        KubeClients.requireOneReadable(kubeconfigs);
      }
      return KubeClients.load(config.kubeconfig());
    } catch (IOException | RuntimeException e) {
      // Missing, unreadable or malformed: the operator's to fix, not a restart's (exit code 2).
      String source =
          config
              .kubeconfig()
              .map(path -> "--kubeconfig " + path)
              .orElse(
                  kubeconfigs.isEmpty()
                      ? "kubeconfig"
                      : "KUBECONFIG "
                          + String.join(
                              File.pathSeparator,
                              kubeconfigs.stream().map(Path::toString).toList()));
      throw new BadConfigurationException(source + ": " + Reasons.of(e), e);
    }
  }
}
