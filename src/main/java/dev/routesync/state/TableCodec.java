package dev.routesync.state;

import static dev.routesync.table.TableLimits.MAX_ADDITIONAL_ADDRESSES;
import static dev.routesync.table.TableLimits.MAX_ENDPOINTS_PER_SERVICE;
import static dev.routesync.table.TableLimits.MAX_HINTS;
import static dev.routesync.table.TableLimits.MAX_PORTS;
import static dev.routesync.table.TableLimits.MAX_SERVICES;
import static dev.routesync.table.TableLimits.MAX_STRING_BYTES;

import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableLimits;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The state file's format, version 3: a fixed header, the body, and a CRC32C. Plain {@link
 * DataOutputStream} / {@link DataInputStream}, big-endian; every count and string is bounded when
 * read, so a hostile file cannot allocate more than the entries it really holds.
 *
 * <pre>
 * header (36 bytes)
 *   int   magic             0x52535442 ("RSTB")
 *   short format version    3 (1 and 2 are read too: they lack the parts marked "v2" and "v3")
 *   short flags             0 (no flag is defined; any set bit is malformed)
 *   long  table version
 *   long  written-at        epoch microseconds
 *   long  synced-at         epoch microseconds, 0 when the writer had never heard the API server
 *   int   body length       bytes, at most MAX_FILE_BYTES
 * body
 *   int   services
 *   per Service, in key order: str namespace, str name, long version,
 *     int declared ports, each port, v2: byte traffic flags (trafficDistribution 1,
 *     internalTrafficPolicy Local 2, v3: first IP family IPv6 4, headless 8, externalName 16),
 *     [str trafficDistribution], v3: [str externalName]; int endpoints, each endpoint
 *   endpoint: str ip (the primary address), byte flags (ready 1, serving 2, terminating 4,
 *     zone 8, node 16, pod 32, v2: hints 64, v3: additional addresses 128), [str zone] [str node]
 *     [str pod], v2: [hints], v3: [byte count (1..MAX_ADDITIONAL_ADDRESSES), each a str],
 *     int ports, each port
 *   hints: byte zones, each a str; byte nodes, each a str (at most MAX_HINTS each)
 *   port: str name, short number (1..65535, unsigned), str protocol
 *   str: unsigned short length in bytes (at most MAX_STRING_BYTES), then UTF-8
 * trailer
 *   int   CRC32C of the body followed by the header (so the writer streams the body first and
 *         writes the header, which holds the body's length, last)
 * </pre>
 *
 * Every count and string is bounded by {@link TableLimits}, which translation keeps every table
 * within: so a table the agent publishes always encodes, and reads back.
 *
 * <p>Decoding is all or nothing: the checksum is verified over the whole file before anything is
 * built, then the body is parsed strictly (keys strictly ascending, versions within the table's,
 * ports in range, exactly the announced length, nothing after the trailer). Any failure is a {@link
 * StateFormatException} with its {@link LoadFailure}; there is no partial table.
 */
public final class TableCodec {

  public static final int MAGIC = 0x52535442;
  public static final short FORMAT_VERSION = 3;

  /** The first format, still read: no hints, no traffic settings, one address per endpoint. */
  static final short FORMAT_VERSION_1 = 1;

  /** The previous format, still read: one address per endpoint, no IP family order. */
  static final short FORMAT_VERSION_2 = 2;

  public static final int HEADER_BYTES = 36;
  public static final int TRAILER_BYTES = 4;

  /** The largest file loaded: a cluster of 10,000 Services of 100 endpoints takes about 60 MB. */
  public static final long MAX_FILE_BYTES = 256L << 20;

  /** How far in the future a file's written-at may be (clock skew between writer and reader). */
  public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(5);

  private static final int READY = 1;
  private static final int SERVING = 2;
  private static final int TERMINATING = 4;
  private static final int ZONE = 8;
  private static final int NODE = 16;
  private static final int POD = 32;
  private static final int HINTS = 64;
  private static final int ADDITIONAL_ADDRESSES = 128;
  private static final int KNOWN_FLAGS_V1 = READY | SERVING | TERMINATING | ZONE | NODE | POD;
  private static final int KNOWN_FLAGS_V2 = KNOWN_FLAGS_V1 | HINTS;
  private static final int KNOWN_FLAGS = KNOWN_FLAGS_V2 | ADDITIONAL_ADDRESSES;
  private static final int TRAFFIC_DISTRIBUTION = 1;
  private static final int INTERNAL_LOCAL = 2;
  private static final int IPV6_PRIMARY = 4;
  private static final int HEADLESS = 8;
  private static final int EXTERNAL_NAME = 16;
  private static final int KNOWN_TRAFFIC_FLAGS_V2 = TRAFFIC_DISTRIBUTION | INTERNAL_LOCAL;
  private static final int KNOWN_TRAFFIC_FLAGS =
      KNOWN_TRAFFIC_FLAGS_V2 | IPV6_PRIMARY | HEADLESS | EXTERNAL_NAME;

  private static final int IO_BUFFER = 64 * 1024;

  private TableCodec() {}

  /** Random access to the bytes being decoded: a file channel, or an array in tests. */
  interface Source {
    long size() throws IOException;

    /** A stream of the bytes from {@code offset} on. */
    InputStream from(long offset) throws IOException;
  }

  // ---- encoding ----

  /** The whole file in memory (tests; the agent streams with {@link #write}). */
  public static byte[] encode(RoutingTable table, Instant writtenAt, Optional<Instant> syncedAt) {
    try {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(body);
      writeBody(table, out);
      out.flush();
      byte[] bodyBytes = body.toByteArray();
      byte[] header = header(table.version(), writtenAt, syncedAt, bodyBytes.length);
      CRC32C crc = new CRC32C();
      crc.update(bodyBytes);
      crc.update(header);
      ByteBuffer file = ByteBuffer.allocate(header.length + bodyBytes.length + TRAILER_BYTES);
      file.put(header).put(bodyBytes).putInt((int) crc.getValue());
      return file.array();
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory cannot fail", e);
    }
  }

  /**
   * Writes the file into {@code channel} (empty, positioned at 0), streaming the body: memory stays
   * flat however large the table. Does not force or close the channel.
   */
  public static void write(
      RoutingTable table, Instant writtenAt, Optional<Instant> syncedAt, FileChannel channel)
      throws IOException {
    channel.position(HEADER_BYTES);
    CRC32C crc = new CRC32C();
    CountingCrcStream counted =
        new CountingCrcStream(Channels.newOutputStream(channel), crc); // not closed: the channel
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(counted, IO_BUFFER));
    writeBody(table, out);
    out.flush();
    long bodyLength = counted.count;
    if (bodyLength > MAX_FILE_BYTES - HEADER_BYTES - TRAILER_BYTES) {
      throw new IOException(
          "the table encodes to " + bodyLength + " bytes, over the " + MAX_FILE_BYTES + " cap");
    }
    byte[] header = header(table.version(), writtenAt, syncedAt, (int) bodyLength);
    crc.update(header);
    writeFully(channel, ByteBuffer.wrap(header), 0);
    writeFully(
        channel,
        ByteBuffer.allocate(TRAILER_BYTES).putInt(0, (int) crc.getValue()),
        HEADER_BYTES + bodyLength);
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      at += channel.write(buffer, at);
    }
  }

  private static byte[] header(
      long tableVersion, Instant writtenAt, Optional<Instant> syncedAt, int bodyLength) {
    return ByteBuffer.allocate(HEADER_BYTES)
        .putInt(MAGIC)
        .putShort(FORMAT_VERSION)
        .putShort((short) 0)
        .putLong(tableVersion)
        .putLong(micros(writtenAt))
        .putLong(syncedAt.map(TableCodec::micros).orElse(0L))
        .putInt(bodyLength)
        .array();
  }

  // The writer refuses what the reader would refuse, so that a table over a limit fails its write
  // (the last good file stays, and ages) instead of replacing that file with one no start can load.
  // Translation keeps every table within the limits; reaching one here is a bug to hear about.
  private static void writeBody(RoutingTable table, DataOutputStream out) throws IOException {
    writeCount(out, table.serviceCount(), "Services", MAX_SERVICES);
    for (ServiceEndpoints entry : table.services()) {
      writeString(out, entry.key().namespace());
      writeString(out, entry.key().name());
      out.writeLong(entry.version());
      writePorts(out, entry.servicePorts());
      ServiceTraffic traffic = entry.traffic();
      out.writeByte(
          (traffic.trafficDistribution() != null ? TRAFFIC_DISTRIBUTION : 0)
              | (traffic.internalLocal() ? INTERNAL_LOCAL : 0)
              | (traffic.ipv6Primary() ? IPV6_PRIMARY : 0)
              | (traffic.headless() ? HEADLESS : 0)
              | (traffic.isExternalName() ? EXTERNAL_NAME : 0));
      if (traffic.trafficDistribution() != null) {
        writeString(out, traffic.trafficDistribution());
      }
      if (traffic.isExternalName()) {
        writeString(out, traffic.externalName());
      }
      writeCount(
          out, entry.endpoints().size(), "endpoints of " + entry.key(), MAX_ENDPOINTS_PER_SERVICE);
      for (Endpoint endpoint : entry.endpoints()) {
        writeString(out, endpoint.ip());
        int flags =
            (endpoint.ready() ? READY : 0)
                | (endpoint.serving() ? SERVING : 0)
                | (endpoint.terminating() ? TERMINATING : 0)
                | (endpoint.zone() != null ? ZONE : 0)
                | (endpoint.node() != null ? NODE : 0)
                | (endpoint.pod() != null ? POD : 0)
                | (endpoint.hints().isEmpty() ? 0 : HINTS)
                | (endpoint.additionalAddresses().isEmpty() ? 0 : ADDITIONAL_ADDRESSES);
        out.writeByte(flags);
        if (endpoint.zone() != null) {
          writeString(out, endpoint.zone());
        }
        if (endpoint.node() != null) {
          writeString(out, endpoint.node());
        }
        if (endpoint.pod() != null) {
          writeString(out, endpoint.pod());
        }
        if (!endpoint.hints().isEmpty()) {
          writeNames(out, endpoint.hints().forZones());
          writeNames(out, endpoint.hints().forNodes());
        }
        if (!endpoint.additionalAddresses().isEmpty()) {
          writeAddresses(out, endpoint.additionalAddresses());
        }
        writePorts(out, endpoint.ports());
      }
    }
  }

  private static void writeNames(DataOutputStream out, List<String> names) throws IOException {
    if (names.size() > MAX_HINTS) {
      throw new IOException(names.size() + " hints are over the format's cap");
    }
    out.writeByte(names.size());
    for (String name : names) {
      writeString(out, name);
    }
  }

  private static void writeAddresses(DataOutputStream out, List<String> addresses)
      throws IOException {
    if (addresses.size() > MAX_ADDITIONAL_ADDRESSES) {
      throw new IOException(addresses.size() + " additional addresses are over the format's cap");
    }
    out.writeByte(addresses.size());
    for (String address : addresses) {
      writeString(out, address);
    }
  }

  private static void writePorts(DataOutputStream out, List<Port> ports) throws IOException {
    writeCount(out, ports.size(), "ports", MAX_PORTS);
    for (Port port : ports) {
      writeString(out, port.name());
      out.writeShort(port.port());
      writeString(out, port.protocol());
    }
  }

  private static void writeCount(DataOutputStream out, int count, String what, int max)
      throws IOException {
    if (count > max) {
      throw new IOException(count + " " + what + " are over the format's cap of " + max);
    }
    out.writeInt(count);
  }

  private static void writeString(DataOutputStream out, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_STRING_BYTES) {
      throw new IOException("a string of " + bytes.length + " bytes is over the format's cap");
    }
    out.writeShort(bytes.length);
    out.write(bytes);
  }

  // ---- decoding ----

  /** Decodes a whole file held in memory (tests). */
  public static PersistedTable decode(byte[] file, Instant now, int deltaLogCapacity)
      throws StateFormatException {
    return decode(
        new Source() {
          @Override
          public long size() {
            return file.length;
          }

          @Override
          public InputStream from(long offset) {
            return new ByteArrayInputStream(file, (int) offset, file.length - (int) offset);
          }
        },
        now,
        deltaLogCapacity);
  }

  static PersistedTable decode(Source source, Instant now, int deltaLogCapacity)
      throws StateFormatException {
    try {
      return decodeChecked(source, now, deltaLogCapacity);
    } catch (IOException e) {
      throw new StateFormatException(LoadFailure.IO, "reading failed: " + e, e);
    }
  }

  private static PersistedTable decodeChecked(Source source, Instant now, int deltaLogCapacity)
      throws IOException, StateFormatException {
    long size = source.size();
    if (size == 0) {
      throw new StateFormatException(LoadFailure.EMPTY, "the file is empty");
    }
    if (size > MAX_FILE_BYTES) {
      throw new StateFormatException(
          LoadFailure.OVERSIZED, size + " bytes, over the " + MAX_FILE_BYTES + " cap");
    }
    byte[] header = new byte[(int) Math.min(size, HEADER_BYTES)];
    try (InputStream in = source.from(0)) {
      readFully(in, header);
    }
    ByteBuffer h = ByteBuffer.wrap(header);
    if (size < 4) {
      throw new StateFormatException(LoadFailure.TRUNCATED, size + " bytes, shorter than a header");
    }
    int magic = h.getInt();
    if (magic != MAGIC) {
      throw new StateFormatException(
          LoadFailure.MALFORMED, String.format("not a routesync state file (magic %08x)", magic));
    }
    if (size < 6) {
      throw new StateFormatException(LoadFailure.TRUNCATED, size + " bytes, shorter than a header");
    }
    int format = Short.toUnsignedInt(h.getShort());
    if (format != FORMAT_VERSION && format != FORMAT_VERSION_2 && format != FORMAT_VERSION_1) {
      throw new StateFormatException(
          LoadFailure.VERSION, "format version " + format + ", this agent reads " + FORMAT_VERSION);
    }
    if (size < HEADER_BYTES + TRAILER_BYTES) {
      throw new StateFormatException(LoadFailure.TRUNCATED, size + " bytes, shorter than a header");
    }
    int flags = Short.toUnsignedInt(h.getShort());
    long tableVersion = h.getLong();
    long writtenAtMicros = h.getLong();
    long syncedAtMicros = h.getLong();
    int bodyLength = h.getInt();
    if (bodyLength < 0 || bodyLength > MAX_FILE_BYTES - HEADER_BYTES - TRAILER_BYTES) {
      throw new StateFormatException(
          LoadFailure.OVERSIZED, "the header announces a body of " + bodyLength + " bytes");
    }
    long expected = (long) HEADER_BYTES + bodyLength + TRAILER_BYTES;
    if (size < expected) {
      throw new StateFormatException(
          LoadFailure.TRUNCATED, size + " bytes, the header announces " + expected);
    }
    if (size > expected) {
      throw new StateFormatException(
          LoadFailure.MALFORMED,
          (size - expected) + " bytes after the checksum (the header announces " + expected + ")");
    }
    verifyChecksum(source, header, bodyLength);
    // The header is the writer's now: the checksum covers it.
    if (flags != 0) {
      throw new StateFormatException(LoadFailure.MALFORMED, "unknown flags " + flags);
    }
    if (tableVersion < 0 || writtenAtMicros <= 0 || syncedAtMicros < 0) {
      throw new StateFormatException(
          LoadFailure.MALFORMED, "a negative version or time in the header");
    }
    Instant writtenAt = instant(writtenAtMicros);
    if (writtenAt.isAfter(now.plus(MAX_CLOCK_SKEW))) {
      throw new StateFormatException(
          LoadFailure.FUTURE,
          "written at " + writtenAt + ", more than " + MAX_CLOCK_SKEW + " after now (" + now + ")");
    }
    Optional<Instant> syncedAt =
        syncedAtMicros == 0 ? Optional.empty() : Optional.of(instant(syncedAtMicros));
    List<ServiceEndpoints> entries;
    try (InputStream raw = source.from(HEADER_BYTES)) {
      BodyReader body =
          new BodyReader(
              new DataInputStream(new BufferedInputStream(raw, IO_BUFFER)),
              bodyLength,
              tableVersion,
              format);
      entries = body.services();
      body.requireEnd();
    } catch (IllegalArgumentException | NullPointerException e) {
      // A record's own check (a port out of range): the writer's bug or a forgery, never loaded.
      throw new StateFormatException(LoadFailure.MALFORMED, String.valueOf(e.getMessage()), e);
    }
    try {
      return new PersistedTable(
          RoutingTable.restored(tableVersion, entries, writtenAt, deltaLogCapacity),
          writtenAt,
          syncedAt);
    } catch (IllegalArgumentException e) {
      throw new StateFormatException(LoadFailure.MALFORMED, e.getMessage(), e);
    }
  }

  private static void verifyChecksum(Source source, byte[] header, int bodyLength)
      throws IOException, StateFormatException {
    CRC32C crc = new CRC32C();
    byte[] buffer = new byte[IO_BUFFER];
    int stored;
    try (InputStream in = source.from(HEADER_BYTES)) {
      long left = bodyLength;
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n < 0) {
          throw new StateFormatException(LoadFailure.TRUNCATED, "the file shrank while read");
        }
        crc.update(buffer, 0, n);
        left -= n;
      }
      byte[] trailer = new byte[TRAILER_BYTES];
      readFully(in, trailer);
      stored = ByteBuffer.wrap(trailer).getInt();
    }
    crc.update(header);
    if ((int) crc.getValue() != stored) {
      throw new StateFormatException(
          LoadFailure.CHECKSUM,
          String.format("CRC32C %08x, the file says %08x", (int) crc.getValue(), stored));
    }
  }

  private static void readFully(InputStream in, byte[] into) throws IOException {
    int at = 0;
    while (at < into.length) {
      int n = in.read(into, at, into.length - at);
      if (n < 0) {
        throw new EOFException("the file shrank while read");
      }
      at += n;
    }
  }

  /** Reads the body strictly, counting every byte against the announced length. */
  private static final class BodyReader {

    private final DataInputStream in;
    private final long tableVersion;
    private final int format;
    private final CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final byte[] stringBuffer = new byte[MAX_STRING_BYTES];
    private long left;

    BodyReader(DataInputStream in, long length, long tableVersion, int format) {
      this.in = in;
      this.left = length;
      this.tableVersion = tableVersion;
      this.format = format;
    }

    List<ServiceEndpoints> services() throws IOException, StateFormatException {
      int count = count("services", MAX_SERVICES);
      List<ServiceEndpoints> services = new ArrayList<>(Math.min(count, 1024));
      ServiceKey previous = null;
      for (int i = 0; i < count; i++) {
        ServiceKey key = new ServiceKey(string(), string());
        if (previous != null && previous.compareTo(key) >= 0) {
          throw malformed("Services out of order: " + key + " after " + previous);
        }
        previous = key;
        long version = int64();
        if (version < 0 || version > tableVersion) {
          throw malformed(key + " at version " + version + ", outside 0.." + tableVersion);
        }
        List<Port> servicePorts = ports();
        ServiceTraffic traffic = format == FORMAT_VERSION_1 ? ServiceTraffic.DEFAULT : traffic();
        int endpointCount = count("endpoints of " + key, MAX_ENDPOINTS_PER_SERVICE);
        List<Endpoint> endpoints = new ArrayList<>(Math.min(endpointCount, 1024));
        for (int e = 0; e < endpointCount; e++) {
          Endpoint endpoint = endpoint();
          if (!endpoints.isEmpty() && endpoints.get(endpoints.size() - 1).compareTo(endpoint) > 0) {
            throw malformed("endpoints of " + key + " out of order at " + endpoint.ip());
          }
          endpoints.add(endpoint);
        }
        services.add(new ServiceEndpoints(key, version, endpoints, servicePorts, traffic));
      }
      return services;
    }

    void requireEnd() throws StateFormatException {
      if (left != 0) {
        throw malformed(left + " body bytes after the last Service");
      }
    }

    private Endpoint endpoint() throws IOException, StateFormatException {
      String ip = string();
      int flags = take(1, in::readUnsignedByte);
      int known =
          format == FORMAT_VERSION_1
              ? KNOWN_FLAGS_V1
              : format == FORMAT_VERSION_2 ? KNOWN_FLAGS_V2 : KNOWN_FLAGS;
      if ((flags & ~known) != 0) {
        throw malformed("unknown endpoint flags " + flags);
      }
      // Shared like the translators' (one instance per zone or node), not one copy per endpoint.
      String zone = (flags & ZONE) != 0 ? string().intern() : null;
      String node = (flags & NODE) != 0 ? string().intern() : null;
      String pod = (flags & POD) != 0 ? string() : null;
      EndpointHints hints = EndpointHints.NONE;
      if ((flags & HINTS) != 0) {
        hints = EndpointHints.of(names(), names());
        if (hints.isEmpty()) {
          throw malformed("hints flagged but none given");
        }
      }
      List<String> additional =
          (flags & ADDITIONAL_ADDRESSES) != 0 ? additionalAddresses() : List.of();
      List<Port> ports = ports();
      Endpoint endpoint =
          new Endpoint(
              ip,
              ports,
              zone,
              hints,
              node,
              pod,
              (flags & READY) != 0,
              (flags & SERVING) != 0,
              (flags & TERMINATING) != 0);
      // A blank or repeated address is refused there (IllegalArgumentException: malformed).
      return additional.isEmpty() ? endpoint : endpoint.withAdditionalAddresses(additional);
    }

    private List<String> additionalAddresses() throws IOException, StateFormatException {
      int count = take(1, in::readUnsignedByte);
      if (count < 1 || count > MAX_ADDITIONAL_ADDRESSES) {
        throw malformed(count + " additional addresses, outside 1.." + MAX_ADDITIONAL_ADDRESSES);
      }
      List<String> addresses = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        addresses.add(string());
      }
      return addresses;
    }

    private ServiceTraffic traffic() throws IOException, StateFormatException {
      int flags = take(1, in::readUnsignedByte);
      int known = format == FORMAT_VERSION_2 ? KNOWN_TRAFFIC_FLAGS_V2 : KNOWN_TRAFFIC_FLAGS;
      if ((flags & ~known) != 0) {
        throw malformed("unknown traffic flags " + flags);
      }
      String distribution = (flags & TRAFFIC_DISTRIBUTION) != 0 ? string() : null;
      String externalName = null;
      if ((flags & EXTERNAL_NAME) != 0) {
        externalName = string();
        if (externalName.isEmpty()
            || externalName.length() > ServiceTraffic.MAX_EXTERNAL_NAME_CHARS) {
          throw malformed("an external name of " + externalName.length() + " characters");
        }
      }
      return ServiceTraffic.of(
          distribution,
          (flags & INTERNAL_LOCAL) != 0,
          (flags & IPV6_PRIMARY) != 0,
          (flags & HEADLESS) != 0,
          externalName);
    }

    private List<String> names() throws IOException, StateFormatException {
      int count = take(1, in::readUnsignedByte);
      if (count > MAX_HINTS) {
        throw malformed(count + " hints, over " + MAX_HINTS);
      }
      List<String> names = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        // Interned like the translators' hints.
        names.add(string().intern());
      }
      return names;
    }

    private List<Port> ports() throws IOException, StateFormatException {
      int count = count("ports", MAX_PORTS);
      List<Port> ports = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        String name = string();
        int number = take(2, in::readUnsignedShort);
        String protocol = string();
        if (number < 1) {
          throw malformed("port 0 of " + name);
        }
        ports.add(new Port(name, number, protocol));
      }
      return ports;
    }

    private int count(String what, int max) throws IOException, StateFormatException {
      int count = take(4, in::readInt);
      if (count < 0 || count > max) {
        throw malformed(count + " " + what + ", outside 0.." + max);
      }
      return count;
    }

    private long int64() throws IOException, StateFormatException {
      need(8);
      return in.readLong();
    }

    private String string() throws IOException, StateFormatException {
      int length = take(2, in::readUnsignedShort);
      if (length > MAX_STRING_BYTES) {
        throw malformed("a string of " + length + " bytes, over " + MAX_STRING_BYTES);
      }
      need(length);
      in.readFully(stringBuffer, 0, length);
      if (ascii(length)) {
        // Nearly every string (names, IPs, protocols) is ASCII: skip the decoder's buffers.
        return new String(stringBuffer, 0, length, StandardCharsets.ISO_8859_1);
      }
      try {
        CharBuffer chars = utf8.decode(ByteBuffer.wrap(stringBuffer, 0, length));
        return chars.toString();
      } catch (CharacterCodingException e) {
        throw malformed("a string that is not UTF-8");
      }
    }

    private boolean ascii(int length) {
      for (int i = 0; i < length; i++) {
        if (stringBuffer[i] < 0) {
          return false;
        }
      }
      return true;
    }

    private interface Read {
      int read() throws IOException;
    }

    private int take(int bytes, Read read) throws IOException, StateFormatException {
      need(bytes);
      return read.read();
    }

    private void need(int bytes) throws StateFormatException {
      if (left < bytes) {
        throw malformed("the body ends inside an entry");
      }
      left -= bytes;
    }

    private static StateFormatException malformed(String message) {
      return new StateFormatException(LoadFailure.MALFORMED, message);
    }
  }

  private static long micros(Instant at) {
    return Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000L), at.getNano() / 1_000);
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000);
  }

  /** Counts and checksums what the body writes; never closes the channel under it. */
  private static final class CountingCrcStream extends FilterOutputStream {

    private final CRC32C crc;
    private long count;

    CountingCrcStream(OutputStream out, CRC32C crc) {
      super(out);
      this.crc = crc;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      crc.update(b);
      count++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
      crc.update(bytes, offset, length);
      count += length;
    }

    @Override
    public void close() {
      // The channel is the caller's.
    }
  }
}
