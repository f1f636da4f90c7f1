package dev.routesync.kube;

import dev.routesync.kube.translate.SkipReason;

/**
 * Told once per malformed object version ({@link SkipReporter}) what translation left out. The
 * metrics behind it live in {@code observe/}, wired by the agent.
 *
 * <p>Threading: called on the sync context; implementations must be cheap and must not throw.
 */
public interface SkipObserver {

  void skipped(SkipReason reason);
}
