package dev.routesync.state;

/** A state file that is not loaded, with the reason counted and a message for the one warning. */
public final class StateFormatException extends Exception {

  private final LoadFailure reason;

  public StateFormatException(LoadFailure reason, String message) {
    super(message);
    this.reason = reason;
  }

  public StateFormatException(LoadFailure reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public LoadFailure reason() {
    return reason;
  }
}
