package dev.routesync.client;

/** A call to the agent failed; the message is one line for the operator, without prefix. */
public final class AgentCallException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public AgentCallException(String message) {
    super(message);
  }

  public AgentCallException(String message, Throwable cause) {
    super(message, cause);
  }
}
