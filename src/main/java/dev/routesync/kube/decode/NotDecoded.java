package dev.routesync.kube.decode;

/**
 * The document is not in a shape the fast decoders read: it goes to fabric8's own deserialization.
 * Thrown often enough (every Service or Node event, every ERROR event) that it carries no stack
 * trace.
 */
final class NotDecoded extends RuntimeException {

  static final NotDecoded INSTANCE = new NotDecoded();

  private NotDecoded() {
    super("not in a shape the fast decoders read", null, false, false);
  }
}
