package dev.routesync.client;

import io.vertx.core.http.HttpClosedException;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcErrorException;
import java.net.ConnectException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/** Turns what Vert.x, Netty or gRPC report into one line an operator can act on. */
final class AgentFailures {

  private AgentFailures() {}

  static AgentCallException noAgent(Path socket) {
    return new AgentCallException(
        "no agent is listening on "
            + socket
            + " (is the agent running? set --socket or ROUTESYNC_SOCKET)");
  }

  static AgentCallException notSynced(Path socket) {
    return new AgentCallException(
        "the agent on "
            + socket
            + " has not synced with the Kubernetes API server yet"
            + " (it serves no routes until its first list succeeds; see its log and /readyz)");
  }

  /** The failure of a call to the agent on {@code socket}, in one line. */
  static AgentCallException describe(Throwable error, Path socket) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof AgentCallException known) {
        return known;
      }
      if (cause instanceof InvalidStatusException status) {
        return new AgentCallException(
            "the agent on " + socket + " answered " + status.actualStatus().name(), error);
      }
      if (cause instanceof GrpcErrorException reset) {
        return new AgentCallException(
            "the agent on " + socket + " reset the call (" + reset.status().name() + ")", error);
      }
      if (cause instanceof TimeoutException) {
        return new AgentCallException(
            "the agent on " + socket + " did not answer within " + AgentClient.CALL_TIMEOUT_TEXT,
            error);
      }
      if (cause instanceof HttpClosedException) {
        return new AgentCallException("the agent on " + socket + " closed the connection", error);
      }
      String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("permission denied")) {
        return new AgentCallException(
            "permission denied on " + socket + " (the socket is for the agent's user and group)",
            error);
      }
      if (cause instanceof ConnectException
          || message.contains("connection refused")
          || message.contains("no such file or directory")) {
        return noAgent(socket);
      }
      if (message.contains("content-type")) {
        // An HTTP server, but no gRPC: an agent older than this client, or not an agent.
        return new AgentCallException(
            "the server on "
                + socket
                + " does not serve the routesync gRPC API"
                + " (an agent older than this client?)",
            error);
      }
    }
    return new AgentCallException("cannot talk to the agent on " + socket + ": " + error, error);
  }
}
