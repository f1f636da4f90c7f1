package dev.routesync.xds;

/**
 * How much memory answering xDS clients may take, set by the agent, never by what a client asks.
 * The defaults follow the heap the agent runs in ({@link #forHeap}), so the image's 96 MiB agent
 * and a larger one each get limits that fit.
 *
 * <p>What each costs a client that crosses it: a request that would subscribe more names than its
 * stream or its peer may follow ends the stream with {@code RESOURCE_EXHAUSTED} (the message names
 * the limit); a state-of-the-world LDS, RDS or CDS response, which must list every subscribed
 * resource, larger than {@link #maxResponseBytes} ends it the same way; EDS and delta responses are
 * sent in parts of at most that size instead, one part per acknowledgement. A peer whose responses
 * in flight reach {@link #maxPendingBytesPerPeer} (or all peers', {@link #maxPendingBytes}) waits
 * for them to be written before more is built.
 *
 * @param maxNamesPerStream names one ADS stream may subscribe, all types together
 * @param maxNamesPerPeer names one peer (a uid on the socket; a connection where the transport has
 *     no credentials) may subscribe over all its streams
 * @param maxNames names all peers together may subscribe
 * @param maxResponseBytes the largest encoded response, like Envoy's {@code max_response_bytes}
 * @param maxPendingBytesPerPeer bytes of responses being built or waiting to be written, per peer
 * @param maxPendingBytes the same over every peer
 */
public record XdsLimits(
    int maxNamesPerStream,
    int maxNamesPerPeer,
    int maxNames,
    int maxResponseBytes,
    long maxPendingBytesPerPeer,
    long maxPendingBytes) {

  /**
   * What one subscribed name costs the heap, rounded up from a measurement (the name, its parsed
   * target, its entries in the stream's sets and maps, the version sent): about 600 bytes.
   */
  static final int BYTES_PER_NAME = 1024;

  /** No response larger than this at any heap: gRPC clients refuse messages over 4 MiB. */
  static final int RESPONSE_BYTES_CEILING = 4 * 1024 * 1024;

  static final int RESPONSE_BYTES_FLOOR = 256 * 1024;

  public XdsLimits {
    if (maxNamesPerStream < 1
        || maxNamesPerPeer < 1
        || maxNames < maxNamesPerPeer
        || maxResponseBytes < 1
        || maxPendingBytesPerPeer < maxResponseBytes
        || maxPendingBytes < maxPendingBytesPerPeer) {
      throw new IllegalArgumentException(
          "xDS limits must be positive, and the pending budgets at least one response: " + this);
    }
  }

  /**
   * The limits for an agent whose heap may grow to {@code maxHeapBytes} ({@code
   * Runtime.maxMemory()}): a peer's names take at most an eighth of it, one response a 24th (at
   * most 4 MiB), a peer's responses in flight two of those, everyone's a sixth of the heap.
   */
  public static XdsLimits forHeap(long maxHeapBytes) {
    long names = Math.max(1_000, maxHeapBytes / 8 / BYTES_PER_NAME);
    // A stream follows four types of at most MAX_NAMES names each.
    int perStream = (int) Math.min(4L * AbstractAdsStream.MAX_NAMES, names);
    int perPeer = (int) Math.min(Integer.MAX_VALUE / 2, names);
    int allNames = (int) Math.min(Integer.MAX_VALUE, Math.max(2L * perPeer, 2 * names));
    int response =
        (int) Math.max(RESPONSE_BYTES_FLOOR, Math.min(RESPONSE_BYTES_CEILING, maxHeapBytes / 24));
    long pendingPerPeer = 2L * response;
    long pending = Math.max(2 * pendingPerPeer, maxHeapBytes / 6);
    return new XdsLimits(perStream, perPeer, allNames, response, pendingPerPeer, pending);
  }

  /** The limits for this JVM's heap. */
  public static XdsLimits ofThisHeap() {
    return forHeap(Runtime.getRuntime().maxMemory());
  }
}
