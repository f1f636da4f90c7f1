package dev.routesync.client;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http2.Http2Exception;
import io.vertx.core.http.HttpClosedException;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcErrorException;
import io.vertx.grpc.common.MessageSizeOverflowException;
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
      if (cause instanceof MessageSizeOverflowException overflow) {
        return new AgentCallException(
            "the agent on "
                + socket
                + " sent a message of "
                + overflow.messageSize()
                + " bytes, more than the "
                + AgentClient.MAX_ANSWER_TEXT
                + " this client reads (ask for less: one --namespace at a time)",
            error);
      }
      if (cause instanceof Http2Exception
          || cause instanceof DecoderException
          || cause instanceof TooLongFrameException
          || String.valueOf(cause.getMessage()).startsWith("invalid version format")) {
        // Bytes that are not HTTP/2 (gRPC) or HTTP/1.1 (get drift): not the agent's socket.
        return new AgentCallException(
            "the server on "
                + socket
                + " does not speak the agent's protocol (is --socket the agent's socket?)",
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
    return new AgentCallException(
        "cannot talk to the agent on " + socket + ": " + oneLine(String.valueOf(error)), error);
  }

  /** The first line of {@code text}, at most 200 characters: an answer or error shown in a line. */
  static String oneLine(String text) {
    String first = text.strip().lines().findFirst().orElse("");
    return first.length() <= 200 ? first : first.substring(0, 200) + "...";
  }
}
