package dev.routesync.xds;

/** What a stream asks of its subscription to one type, whichever the protocol. */
interface AdsSubscription {

  /**
   * Whether the latest response of this type is unacknowledged: nothing more goes out until then.
   */
  boolean pending();

  /** Names subscribed explicitly. */
  int size();
}
