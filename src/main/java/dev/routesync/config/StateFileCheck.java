package dev.routesync.config;

import dev.routesync.serve.SocketLock;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.state.StateFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The start-time check of {@code --state-file}: the agent replaces that file at every flush, so it
 * must not be a file of anything else. Refused (exit code 2, one line, the file untouched):
 *
 * <ul>
 *   <li>the same file as {@code --socket}, the socket's lock file, or the kubeconfig in use ({@code
 *       --kubeconfig} or {@code KUBECONFIG}); the paths are compared as given (made absolute) and,
 *       where they exist, as real paths, so a link or {@code ..} does not hide it;
 *   <li>anything at the path that is not a state file: see {@link StateFile#refusal}.
 * </ul>
 */
public final class StateFileCheck {

  private StateFileCheck() {}

  /**
   * @param kubeconfigs the kubeconfig files the agent reads its credentials from, if any
   * @throws BadConfigurationException naming the flag and the file
   */
  public static void check(AgentConfig config, List<Path> kubeconfigs) {
    Optional<Path> configured = config.state().file();
    if (configured.isEmpty()) {
      return;
    }
    Path state = configured.get().toAbsolutePath();
    String flag = "--state-file " + state;
    clash(state, config.socket(), flag + " is the socket's path (--socket)");
    clash(state, SocketLock.lockFileOf(config.socket()), flag + " is the socket's lock file");
    for (Path kubeconfig : kubeconfigs) {
      clash(state, kubeconfig, flag + " is the kubeconfig " + kubeconfig);
    }
    new StateFile(state)
        .refusal()
        .ifPresent(
            what ->
                refuse(
                    flag
                        + ": "
                        + what
                        + "; refusing to replace it (the agent writes only its own state file)"));
  }

  private static void clash(Path state, Path other, String message) {
    if (sameFile(state, other.toAbsolutePath())) {
      refuse(message + "; the agent would overwrite it: choose a file of its own");
    }
  }

  private static boolean sameFile(Path a, Path b) {
    if (a.normalize().equals(b.normalize()) || real(a).equals(real(b))) {
      return true;
    }
    try {
      // Hard links, bind mounts: one inode under two names.
      return Files.exists(a, LinkOption.NOFOLLOW_LINKS)
          && Files.exists(b, LinkOption.NOFOLLOW_LINKS)
          && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The real path of the file, or of its closest existing directory with the rest appended: a state
   * file that does not exist yet is compared by where it will be created.
   */
  private static Path real(Path path) {
    Path normal = path.normalize();
    Path existing = normal;
    while (existing != null) {
      try {
        Path realPrefix = existing.toRealPath();
        return realPrefix.resolve(existing.relativize(normal)).normalize();
      } catch (IOException e) {
        existing = existing.getParent();
      }
    }
    return normal;
  }

  private static void refuse(String message) {
    throw new BadConfigurationException(message);
  }
}
