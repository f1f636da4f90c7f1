package dev.routesync.startup;

/**
 * Configuration that passed flag validation but does not fit this machine, found when the agent
 * starts: a missing or unreadable kubeconfig, an admin host that does not resolve, something other
 * than a stale socket at the socket path. The operator has to change something, as for a bad flag,
 * so the runner exits with code 2 (usage), not 1 (a failure that a restart may cure).
 *
 * <p>The message is one line for a pod's log, naming the flag and the value when there is one.
 */
public final class BadConfigurationException extends RuntimeException {

  public BadConfigurationException(String message) {
    super(message);
  }

  public BadConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
