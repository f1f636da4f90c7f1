package dev.routesync.errors;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Walks an exception's cause chain. {@link Throwable#initCause} refuses only a throwable as its own
 * cause, so a chain can loop (A caused by B caused by A); a walk that follows {@code getCause()}
 * until {@code null} then never ends, on the path that was meant to report a failure.
 *
 * <p>Written here rather than taken from Guava's {@code Throwables}: Guava is not a dependency of
 * ours (it comes, minimized, through protobuf-java-util), and its {@code getRootCause} throws on a
 * loop, where an error message needs an answer.
 */
public final class Causes {

  private Causes() {}

  /**
   * The innermost cause of {@code error} ({@code error} itself if it has none). On a loop, the last
   * throwable before the chain comes back to one already seen.
   */
  public static Throwable root(Throwable error) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Throwable root = error;
    seen.add(root);
    while (root.getCause() != null && seen.add(root.getCause())) {
      root = root.getCause();
    }
    return root;
  }
}
