package dev.routesync.serve;

import io.vertx.grpc.common.GrpcStatus;
import java.util.function.IntSupplier;

/**
 * What serving tells the outside about its calls and Watch streams. The servers know only this
 * interface; the metrics behind it live in {@code observe/}, wired by the agent.
 *
 * <p>Threading: called on any event loop; implementations must be cheap, thread-safe and must not
 * throw.
 */
public interface ServeObserver {

  /** A call ended with {@code status}. */
  void grpcCall(GrpcMethod method, GrpcStatus status);

  /**
   * A call ended without a status: the client went away (reset, closed) before its request was
   * read, so there was no one to answer.
   */
  void grpcAbortedByClient(GrpcMethod method);

  /** A Watch stream opened ({@code +1}) or ended ({@code -1}). */
  void watchSubscribers(int delta);

  /** A WatchEvent message carrying {@code services} Services (upserted or removed) was sent. */
  void watchMessage(int services);

  /** A Watch message caught a slow subscriber up. */
  void watchLagged(WatchLag how);

  /** Reports the connections open on {@code listener}, read when scraped. */
  void connectionsOpen(Listener listener, IntSupplier open);

  /** A connection refused at accept because {@code listener} was at its cap. */
  void connectionRejected(Listener listener);

  /** A connection the agent closed. */
  void connectionClosed(Listener listener, CloseReason reason);

  /**
   * A socket connection from a peer of {@code uid} opened ({@code +1}) or closed ({@code -1}).
   * {@code uid} is the kernel's unsigned value, or -1 when the peer's credentials could not be read
   * (the NIO transport). A client chooses its uid as far as the socket's mode lets it in, so an
   * implementation must bound what it keeps per uid.
   */
  void socketConnections(long uid, int delta);

  /**
   * A socket connection from a peer the peer policy lets in was closed at accept: the socket was at
   * its cap, or {@code uid} held its share of it. {@code uid} as in {@link #socketConnections}; an
   * implementation must bound the uids it keeps a series for.
   */
  void socketRefused(long uid, SocketRefusal why);

  /**
   * A request was cancelled because its body (the request message, for gRPC) had not arrived within
   * the body timeout.
   */
  void bodyTimedOut(Listener listener);

  /** The debug listener refused a request before any route saw it ({@link DebugRequestGate}). */
  void debugRequestRefused(DebugRefusal why);
}
