package dev.routesync.serve;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The sidecar-facing server on a Unix domain socket. Claims the path first ({@link SocketLock}),
 * then binds and sets the socket's mode to 0660.
 */
public final class SocketServer {

  private final Vertx vertx;
  private final Path path;
  private final Handler<HttpServerRequest> handler;
  private final HttpServerOptions options;
  private final Handler<HttpConnection> connectionHandler;
  private SocketLock lock;
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

  /** Claims the path and listens; fails with an operator-readable message. */
  public Future<Void> listen() {
    try {
      lock = SocketLock.claim(path);
    } catch (IllegalStateException e) {
      return Future.failedFuture(e);
    }
    server =
        vertx
            .createHttpServer(options)
            .requestHandler(handler)
            .invalidRequestHandler(Errors::invalidRequest)
            .connectionHandler(connectionHandler);
    return server
        .listen(SocketAddress.domainSocketAddress(lock.socket().toString()))
        .<Void>map(
            bound -> {
              lock.restrictSocketMode();
              return null;
            })
        .onFailure(error -> lock.close());
  }

  public Path path() {
    return path.toAbsolutePath();
  }

  /** Stops listening, removes the socket file and releases the claim. */
  public Future<Void> close() {
    return shutdown(java.time.Duration.ZERO);
  }

  /**
   * Stops accepting, sends GOAWAY on HTTP/2 connections, waits up to {@code timeout} for open
   * streams to finish, then closes; removes the socket file and releases the claim.
   */
  public Future<Void> shutdown(java.time.Duration timeout) {
    Future<Void> closed =
        server == null
            ? Future.succeededFuture()
            : server.shutdown(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    return closed.andThen(
        done -> {
          if (lock != null) {
            try {
              Files.deleteIfExists(lock.socket());
            } catch (java.io.IOException e) {
              // Netty normally removes it; a leftover file is harmless behind the lock.
            }
            lock.close();
          }
        });
  }
}
