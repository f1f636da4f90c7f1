package dev.routesync.serve;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Path;

/**
 * The sidecar-facing server on a Unix domain socket. Claims the path first ({@link SocketLock}),
 * binds a private name beside it and moves the socket into place with mode 0660 ({@link
 * SocketFile}); on stop removes the socket only if the path still holds it. Any authority is
 * accepted ({@link AnyAuthority}): on a Unix socket clients send the path, or nothing meaningful.
 */
public final class SocketServer {

  private final Vertx vertx;
  private final Path path;
  private final Handler<HttpServerRequest> handler;
  private final HttpServerOptions options;
  private final Handler<HttpConnection> connectionHandler;
  private SocketLock lock;
  private volatile SocketFile file; // read by readiness checks on other threads
  private HttpServer server;

  public SocketServer(Vertx vertx, Path path, Handler<HttpServerRequest> handler) {
    this(vertx, path, handler, new HttpServerOptions(), connection -> {});
  }

  public SocketServer(
      Vertx vertx,
      Path path,
      Handler<HttpServerRequest> handler,
      HttpServerOptions options,
      Handler<HttpConnection> connectionHandler) {
    this.vertx = vertx;
    this.path = path;
    this.handler = handler;
    this.options = options;
    this.connectionHandler = connectionHandler;
  }

  /**
   * Claims the path and listens; fails with an operator-readable message, a {@link
   * dev.routesync.startup.BadConfigurationException} when the path is the problem.
   */
  public Future<Void> listen() {
    try {
      lock = SocketLock.claim(path);
      file = SocketFile.reserve(lock.socket());
    } catch (RuntimeException e) {
      if (lock != null) {
        lock.abandon(); // a refused start leaves no lock file it created
        lock = null;
      }
      return Future.failedFuture(e);
    }
    server =
        vertx
            .createHttpServer(options)
            .requestHandler(handler)
            .invalidRequestHandler(Errors::invalidRequest)
            .connectionHandler(
                connection -> {
                  AnyAuthority.install(connection); // first: before any request is read
                  connectionHandler.handle(connection);
                });
    return server
        .listen(SocketAddress.domainSocketAddress(file.bindPath().toString()))
        .recover(
            error ->
                Future.failedFuture(ListenFailures.of("socket", "unix:" + lock.socket(), error)))
        .<Void>map(
            bound -> {
              file.publish();
              return null;
            })
        .onFailure(
            error -> {
              server.close(); // bound, perhaps, but never published
              file.removeIfOurs();
              lock.abandon();
            });
  }

  public Path path() {
    return path.toAbsolutePath();
  }

  /**
   * Empty while the socket path still holds the socket this server created; otherwise why not
   * (removed, replaced, never listening). Cheap: one stat.
   */
  public String fileProblem() {
    SocketFile current = file;
    return current == null ? "socket not listening" : current.problem();
  }

  /** Stops listening, removes the socket file and releases the claim. */
  public Future<Void> close() {
    return shutdown(java.time.Duration.ZERO);
  }

  /**
   * Stops accepting, sends GOAWAY on HTTP/2 connections, waits up to {@code timeout} for open
   * streams to finish, then closes and releases the claim. The socket file goes first, if it is
   * still this server's: the listener closes at once anyway, and an inode number identifies a file
   * only while the inode is in use, which the listening socket guarantees until it closes.
   */
  public Future<Void> shutdown(java.time.Duration timeout) {
    SocketFile current = file;
    if (current != null) {
      current.removeIfOurs(); // idempotent
    }
    Future<Void> closed =
        server == null
            ? Future.succeededFuture()
            : server.shutdown(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    return closed.andThen(
        done -> {
          if (lock != null) {
            lock.close(); // idempotent
          }
        });
  }
}
