package dev.routesync.serve;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Timestamp;
import dev.routesync.api.v1.ServiceRef;
import dev.routesync.api.v1.WatchEvent;
import dev.routesync.table.ServiceKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One {@code WatchEvent} assembled as bytes from Services already encoded ({@link
 * EncodedServices}): a repeated message field on the wire is each element's tag, length and bytes,
 * so the upserted Services are copied in, not encoded again. Fields go in field-number order, as
 * protobuf-java writes them, so the bytes equal {@code WatchEvent.toByteArray()} of the same event.
 */
final class WatchMessage {

  private static final int VERSION = WatchEvent.VERSION_FIELD_NUMBER;
  private static final int RESET = WatchEvent.RESET_FIELD_NUMBER;
  private static final int UPSERTED = WatchEvent.UPSERTED_FIELD_NUMBER;
  private static final int REMOVED = WatchEvent.REMOVED_FIELD_NUMBER;
  private static final int STALE = WatchEvent.STALE_FIELD_NUMBER;
  private static final int SYNCED_AT = WatchEvent.SYNCED_AT_FIELD_NUMBER;

  private final long version;
  private final boolean stale;
  private final Timestamp syncedAt;
  private boolean reset;
  private final List<byte[]> upserted = new ArrayList<>();
  private final List<ServiceRef> removed = new ArrayList<>();

  /** The table version this message brings the subscriber to. */
  long version() {
    return version;
  }

  WatchMessage(long version, boolean stale, Optional<Instant> syncedAt) {
    this.version = version;
    this.stale = stale;
    this.syncedAt = syncedAt.map(ProtoMapping::timestamp).orElse(null);
  }

  WatchMessage reset() {
    reset = true;
    return this;
  }

  /** Adds an upserted Service, as its encoded {@code ServiceEndpoints}. */
  void upsert(byte[] service) {
    upserted.add(service);
  }

  void remove(ServiceKey key) {
    removed.add(ProtoMapping.ref(key));
  }

  /** Services upserted or removed. */
  int services() {
    return upserted.size() + removed.size();
  }

  boolean stale() {
    return stale;
  }

  /** The event's bytes: one copy of each upserted Service. */
  byte[] toBytes() {
    int size = 0;
    if (version != 0) {
      size += CodedOutputStream.computeUInt64Size(VERSION, version);
    }
    if (reset) {
      size += CodedOutputStream.computeBoolSize(RESET, true);
    }
    for (byte[] service : upserted) {
      size += CodedOutputStream.computeByteArraySize(UPSERTED, service);
    }
    for (ServiceRef ref : removed) {
      size += CodedOutputStream.computeMessageSize(REMOVED, ref);
    }
    if (stale) {
      size += CodedOutputStream.computeBoolSize(STALE, true);
    }
    if (syncedAt != null) {
      size += CodedOutputStream.computeMessageSize(SYNCED_AT, syncedAt);
    }
    byte[] bytes = new byte[size];
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      if (version != 0) {
        out.writeUInt64(VERSION, version);
      }
      if (reset) {
        out.writeBool(RESET, true);
      }
      for (byte[] service : upserted) {
        // Bytes and an embedded message share the wire type: tag, length, content.
        out.writeByteArray(UPSERTED, service);
      }
      for (ServiceRef ref : removed) {
        out.writeMessage(REMOVED, ref);
      }
      if (stale) {
        out.writeBool(STALE, true);
      }
      if (syncedAt != null) {
        out.writeMessage(SYNCED_AT, syncedAt);
      }
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("sizing a WatchEvent", e); // a bug: the size was computed
    }
    return bytes;
  }
}
