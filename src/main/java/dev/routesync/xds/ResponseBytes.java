package dev.routesync.xds;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/**
 * One response message assembled as bytes while it is built, resource by resource: what a large
 * response holds is its encoding, never a list of resource objects beside it. A repeated message
 * field on the wire is each element's tag, length and bytes, so appending fields one at a time in
 * any order gives a message every protobuf parser reads.
 *
 * <p>Owned by one stream's event loop.
 */
final class ResponseBytes {

  private static final int INITIAL = 4096;

  private final Buffer buffer = Buffer.buffer(INITIAL);
  private int resources;
  private long reserved;

  /** Bytes so far. */
  int size() {
    return buffer.length();
  }

  /** Resources appended so far. */
  int resources() {
    return resources;
  }

  /**
   * Bytes reserved for this response from its peer's pending budget (each resource's field; the few
   * header bytes are not reserved).
   */
  long reserved() {
    return reserved;
  }

  void reserved(long bytes) {
    reserved += bytes;
  }

  /** What appending {@code value} as field {@code field} would add. */
  static int fieldSize(int field, int valueLength) {
    return CodedOutputStream.computeTagSize(field)
        + CodedOutputStream.computeUInt32SizeNoTag(valueLength)
        + valueLength;
  }

  /** Appends a resource (an encoded message) as field {@code field}. */
  void addResource(int field, ByteString message) {
    tag(field);
    varint(message.size());
    buffer.appendBytes(message.toByteArray());
    resources++;
  }

  /** Appends a resource given as its parts (an {@code Any} with its type URL and value). */
  void addAny(int field, ByteString typeUrl, ByteString value) {
    int typeField = fieldSize(1, typeUrl.size());
    int valueField = fieldSize(2, value.size());
    tag(field);
    varint(typeField + valueField);
    bytes(1, typeUrl);
    bytes(2, value);
    resources++;
  }

  /** Appends a string field (not a resource). */
  void addString(int field, String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    tag(field);
    varint(utf8.length);
    buffer.appendBytes(utf8);
  }

  Buffer buffer() {
    return buffer;
  }

  private void bytes(int field, ByteString value) {
    tag(field);
    varint(value.size());
    buffer.appendBytes(value.toByteArray());
  }

  private void tag(int field) {
    varint((field << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED);
  }

  private void varint(int value) {
    while ((value & ~0x7f) != 0) {
      buffer.appendByte((byte) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    buffer.appendByte((byte) value);
  }
}
