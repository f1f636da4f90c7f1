package dev.routesync.demo;

import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

/**
 * A mock watch's websocket listener that hands every callback to the mock's own: the wrappers that
 * make the CRUD mock's watches more faithful ({@link WatchBookmarks}; the tests' {@code
 * WatchResumes}) override only the callbacks they change.
 */
public abstract class ForwardingWebSocketListener extends WebSocketListener {

  /** The mock's own listener (its watch's sender). */
  protected final WebSocketListener delegate;

  protected ForwardingWebSocketListener(WebSocketListener delegate) {
    this.delegate = delegate;
  }

  @Override
  public void onBeforeAccept(WebSocket webSocket, Response response) {
    delegate.onBeforeAccept(webSocket, response);
  }

  @Override
  public void onOpen(WebSocket webSocket, Response response) {
    delegate.onOpen(webSocket, response);
  }

  @Override
  public void onMessage(WebSocket webSocket, String text) {
    delegate.onMessage(webSocket, text);
  }

  @Override
  public void onMessage(WebSocket webSocket, ByteString bytes) {
    delegate.onMessage(webSocket, bytes);
  }

  @Override
  public void onMessage(WebSocket webSocket, byte[] bytes) {
    delegate.onMessage(webSocket, bytes);
  }

  @Override
  public void onPing(WebSocket webSocket, byte[] payload) {
    delegate.onPing(webSocket, payload);
  }

  @Override
  public void onClosing(WebSocket webSocket, int code, String reason) {
    delegate.onClosing(webSocket, code, reason);
  }

  @Override
  public void onClosed(WebSocket webSocket, int code, String reason) {
    delegate.onClosed(webSocket, code, reason);
  }

  @Override
  public void onFailure(WebSocket webSocket, Throwable error, Response response) {
    delegate.onFailure(webSocket, error, response);
  }
}
