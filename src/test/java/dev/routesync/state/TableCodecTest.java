package dev.routesync.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableLimits;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.zip.CRC32C;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The state file's format: a round trip over random tables (seeded, {@code -Droutesync.seed=N} to
 * replay), and every kind of damage rejected with its reason, never a partial table.
 */
class TableCodecTest {

  private static final long SEED = Long.getLong("routesync.seed", 20261201L);
  private static final Instant NOW = RandomTables.T0.plusSeconds(30);
  private static final Optional<Instant> SYNCED = Optional.of(RandomTables.T0.minusSeconds(2));

  @Test
  void randomTablesSurviveTheRoundTrip() throws Exception {
    Random random = new Random(SEED);
    for (int trial = 0; trial < 300; trial++) {
      RoutingTable table = RandomTables.table(random);
      Optional<Instant> synced = random.nextBoolean() ? SYNCED : Optional.empty();
      byte[] file = TableCodec.encode(table, RandomTables.T0, synced);

      PersistedTable decoded = TableCodec.decode(file, NOW, 1024);

      assertThat(decoded.table().version())
          .as("seed %d trial %d", SEED, trial)
          .isEqualTo(table.version());
      assertThat(List.copyOf(decoded.table().services()))
          .as("seed %d trial %d", SEED, trial)
          .isEqualTo(List.copyOf(table.services()));
      assertThat(decoded.table().endpointCount()).isEqualTo(table.endpointCount());
      assertThat(decoded.writtenAt()).isEqualTo(RandomTables.T0);
      assertThat(decoded.syncedAt()).isEqualTo(synced);
      // A restored table resumes a watcher at its own version with nothing to send.
      assertThat(decoded.table().changedSince(table.version())).contains(java.util.Set.of());
    }
  }

  @Test
  void aTableCutShortAnywhereIsTruncated() throws Exception {
    byte[] file = sample();
    assertThat(file.length).isGreaterThan(500);
    for (int length = 1; length < file.length; length += length < 64 ? 1 : 7) {
      byte[] cut = java.util.Arrays.copyOf(file, length);
      rejected(cut, LoadFailure.TRUNCATED, "cut at " + length);
    }
    rejected(java.util.Arrays.copyOf(file, file.length - 1), LoadFailure.TRUNCATED, "last byte");
  }

  @Test
  void zeroBytesAreEmpty() {
    rejected(new byte[0], LoadFailure.EMPTY, "zero bytes");
  }

  @Test
  void everyFlippedBitIsRejected() throws Exception {
    byte[] file = sample();
    for (int bit = 0; bit < file.length * 8; bit += bit < TableCodec.HEADER_BYTES * 8 ? 1 : 17) {
      byte[] flipped = file.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      int at = bit / 8;
      if (at < 4) {
        rejected(flipped, LoadFailure.MALFORMED, "magic bit " + bit);
      } else if (at < 6) {
        int version = ((flipped[4] & 255) << 8) | (flipped[5] & 255);
        // A flip to an older format this agent still reads is caught by the checksum, which
        // covers the header.
        rejected(
            flipped,
            version == 1 || version == 2 ? LoadFailure.CHECKSUM : LoadFailure.VERSION,
            "format version bit " + bit);
      } else if (at >= 32 && at < 36) {
        // The body's length: the file no longer has the size its header announces.
        assertThatThrownBy(() -> TableCodec.decode(flipped, NOW, 1024))
            .as("length bit %d", bit)
            .isInstanceOfSatisfying(
                StateFormatException.class,
                e ->
                    assertThat(e.reason())
                        .isIn(LoadFailure.TRUNCATED, LoadFailure.MALFORMED, LoadFailure.OVERSIZED));
      } else {
        rejected(flipped, LoadFailure.CHECKSUM, "bit " + bit);
      }
    }
  }

  @Test
  void anotherFormatVersionIsRefused() throws Exception {
    byte[] file = sample();
    ByteBuffer.wrap(file).putShort(4, (short) 4);
    rejected(file, LoadFailure.VERSION, "version 4");
  }

  @Test
  void somethingElseEntirelyIsMalformed() {
    byte[] text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n".getBytes();
    rejected(text, LoadFailure.MALFORMED, "yaml");
  }

  @Test
  void bytesAfterTheChecksumAreMalformed() throws Exception {
    byte[] file = sample();
    byte[] longer = java.util.Arrays.copyOf(file, file.length + 3);
    rejected(longer, LoadFailure.MALFORMED, "trailing junk");
  }

  @Test
  void aFileFromTheFutureIsRefusedButSmallSkewIsNot() throws Exception {
    RoutingTable table = RandomTables.table(new Random(SEED));
    Instant future = NOW.plus(TableCodec.MAX_CLOCK_SKEW).plusSeconds(1);
    rejected(TableCodec.encode(table, future, SYNCED), LoadFailure.FUTURE, "future");
    Instant skewed = NOW.plus(TableCodec.MAX_CLOCK_SKEW).minusSeconds(1);
    assertThat(TableCodec.decode(TableCodec.encode(table, skewed, SYNCED), NOW, 1024).writtenAt())
        .isEqualTo(skewed);
  }

  @Test
  void aHeaderAnnouncingMoreThanTheCapIsOversized() throws Exception {
    byte[] file = sample();
    ByteBuffer.wrap(file).putInt(32, Integer.MAX_VALUE);
    rejected(file, LoadFailure.OVERSIZED, "announced length");
  }

  @Test
  void aFileOverTheCapIsOversizedWithoutBeingRead() {
    TableCodec.Source huge =
        new TableCodec.Source() {
          @Override
          public long size() {
            return TableCodec.MAX_FILE_BYTES + 1;
          }

          @Override
          public InputStream from(long offset) {
            throw new AssertionError("an oversized file is not read");
          }
        };
    assertThatThrownBy(() -> TableCodec.decode(huge, NOW, 1024))
        .isInstanceOfSatisfying(
            StateFormatException.class,
            e -> assertThat(e.reason()).isEqualTo(LoadFailure.OVERSIZED));
  }

  @Test
  void aReadErrorIsIo() {
    TableCodec.Source failing =
        new TableCodec.Source() {
          @Override
          public long size() {
            return 100;
          }

          @Override
          public InputStream from(long offset) throws IOException {
            throw new IOException("Input/output error");
          }
        };
    assertThatThrownBy(() -> TableCodec.decode(failing, NOW, 1024))
        .isInstanceOfSatisfying(
            StateFormatException.class, e -> assertThat(e.reason()).isEqualTo(LoadFailure.IO));
  }

  @Test
  void hostileCountsWithAValidChecksumAreMalformedNotAllocated() throws Exception {
    // A forged body: two billion Services announced in four bytes.
    rejected(sealed(body(out -> out.writeInt(Integer.MAX_VALUE))), LoadFailure.MALFORMED, "count");
    // A million announced (within the cap) but no bytes to back them.
    rejected(sealed(body(out -> out.writeInt(1_000_000))), LoadFailure.MALFORMED, "no bytes");
    // A string longer than the cap.
    rejected(
        sealed(
            body(
                out -> {
                  out.writeInt(1);
                  out.writeShort(60_000);
                })),
        LoadFailure.MALFORMED,
        "long string");
    // Not UTF-8.
    rejected(
        sealed(
            body(
                out -> {
                  out.writeInt(1);
                  out.writeShort(2);
                  out.write(new byte[] {(byte) 0xC3, (byte) 0x28});
                })),
        LoadFailure.MALFORMED,
        "bad UTF-8");
    // Keys out of order, and a Service newer than its table.
    rejected(
        sealed(services(new String[][] {{"b", "x"}, {"a", "x"}}, 1)),
        LoadFailure.MALFORMED,
        "order");
    rejected(sealed(services(new String[][] {{"a", "x"}}, 99)), LoadFailure.MALFORMED, "version");
    // The same Services well formed are read (the forger is right about the format).
    assertThat(
            TableCodec.decode(sealed(services(new String[][] {{"a", "x"}, {"b", "x"}}, 1)), NOW, 8)
                .table()
                .serviceCount())
        .isEqualTo(2);
  }

  @Test
  void aVersion1FileLoadsWithDefaultTrafficAndRefusesVersion2Fields() throws Exception {
    PersistedTable old =
        TableCodec.decode(
            sealed(services(new String[][] {{"a", "x"}, {"b", "x"}}, 1, 1), (short) 1), NOW, 8);
    assertThat(old.table().serviceCount()).isEqualTo(2);
    assertThat(old.table().services())
        .allSatisfy(s -> assertThat(s.traffic()).isSameAs(ServiceTraffic.DEFAULT));
    // A version 2 body under a version 1 header is malformed (the traffic byte is read as a count).
    rejected(
        sealed(services(new String[][] {{"a", "x"}}, 1, 2), (short) 1),
        LoadFailure.MALFORMED,
        "v2 body in v1");
    // Unknown traffic flags are refused.
    rejected(
        sealed(
            body(
                out -> {
                  out.writeInt(1);
                  out.writeShort(1);
                  out.writeBytes("a");
                  out.writeShort(1);
                  out.writeBytes("x");
                  out.writeLong(1);
                  out.writeInt(0);
                  out.writeByte(32);
                  out.writeInt(0);
                })),
        LoadFailure.MALFORMED,
        "traffic flags");
  }

  @Test
  void aVersion2FileLoadsWithOneAddressPerEndpointAndRefusesVersion3Fields() throws Exception {
    PersistedTable old =
        TableCodec.decode(sealed(services(new String[][] {{"a", "x"}}, 1, 2), (short) 2), NOW, 8);
    assertThat(old.table().serviceCount()).isEqualTo(1);
    assertThat(old.table().services())
        .allSatisfy(s -> assertThat(s.traffic()).isSameAs(ServiceTraffic.DEFAULT));
    // An endpoint written by a version 2 agent: one address, read as the primary.
    PersistedTable withEndpoint =
        TableCodec.decode(sealed(oneEndpoint(0, out -> {}), (short) 2), NOW, 8);
    Endpoint endpoint =
        withEndpoint.table().get(new ServiceKey("a", "x")).orElseThrow().endpoints().get(0);
    assertThat(endpoint.addresses()).containsExactly("10.0.0.1");
    // The IPv6-first traffic flag and the additional-addresses endpoint flag are version 3's.
    rejected(sealed(oneService(4), (short) 2), LoadFailure.MALFORMED, "v3 traffic flag in v2");
    rejected(
        sealed(oneEndpoint(128, out -> writeAddresses(out, "fd00::1")), (short) 2),
        LoadFailure.MALFORMED,
        "v3 endpoint flag in v2");
    // The same bytes under a version 3 header are read.
    assertThat(
            TableCodec.decode(sealed(oneService(4)), NOW, 8)
                .table()
                .get(new ServiceKey("a", "x"))
                .orElseThrow()
                .traffic()
                .ipv6Primary())
        .isTrue();
    assertThat(
            TableCodec.decode(
                    sealed(oneEndpoint(128, out -> writeAddresses(out, "fd00::1"))), NOW, 8)
                .table()
                .get(new ServiceKey("a", "x"))
                .orElseThrow()
                .endpoints()
                .get(0)
                .addresses())
        .containsExactly("10.0.0.1", "fd00::1");
  }

  @Test
  void additionalAddressesThatAreMissingRepeatedOrTooManyAreMalformed() throws Exception {
    rejected(
        sealed(oneEndpoint(128, out -> out.writeByte(0))), LoadFailure.MALFORMED, "flag, none");
    rejected(
        sealed(oneEndpoint(128, out -> writeAddresses(out, "10.0.0.1"))),
        LoadFailure.MALFORMED,
        "the primary again");
    rejected(
        sealed(oneEndpoint(128, out -> writeAddresses(out, "fd00::1", "fd00::1"))),
        LoadFailure.MALFORMED,
        "repeated");
    String[] nine = new String[TableLimits.MAX_ADDITIONAL_ADDRESSES + 1];
    for (int i = 0; i < nine.length; i++) {
      nine[i] = "fd00::" + (i + 1);
    }
    rejected(
        sealed(oneEndpoint(128, out -> writeAddresses(out, nine))), LoadFailure.MALFORMED, "nine");
  }

  @Test
  void dualStackEndpointsAndTheFamilyOrderSurviveTheRoundTrip() throws Exception {
    ServiceKey key = new ServiceKey("shop", "dual");
    RoutingTable table =
        RoutingTable.restored(
            5,
            List.of(
                new ServiceEndpoints(
                    key,
                    3,
                    List.of(
                        new Endpoint(
                                "fd00::1", List.of(), "zone-a", "node-1", "dual-1", true, true,
                                false)
                            .withAdditionalAddresses(List.of("10.0.0.1")),
                        new Endpoint(
                            "fd00::2", List.of(), "zone-a", "node-1", "other", true, true, false)),
                    List.of(),
                    ServiceTraffic.of(null, false, true))),
            RandomTables.T0,
            8);

    RoutingTable back =
        TableCodec.decode(TableCodec.encode(table, RandomTables.T0, SYNCED), NOW, 8).table();

    ServiceEndpoints entry = back.get(key).orElseThrow();
    assertThat(entry).isEqualTo(table.get(key).orElseThrow());
    assertThat(entry.traffic().ipv6Primary()).isTrue();
    assertThat(entry.endpoints().get(0).addresses()).containsExactly("fd00::1", "10.0.0.1");
    assertThat(entry.endpoints().get(1).addresses()).containsExactly("fd00::2");
  }

  @Test
  void aVersion2FileLoadsAndRefusesTheHeadlessAndExternalNameFlags() throws Exception {
    PersistedTable old =
        TableCodec.decode(sealed(services(new String[][] {{"a", "x"}}, 1, 2), (short) 2), NOW, 8);
    assertThat(old.table().services())
        .allSatisfy(s -> assertThat(s.traffic()).isSameAs(ServiceTraffic.DEFAULT));
    rejected(
        sealed(
            body(
                out -> {
                  out.writeInt(1);
                  out.writeShort(1);
                  out.writeBytes("a");
                  out.writeShort(1);
                  out.writeBytes("x");
                  out.writeLong(1);
                  out.writeInt(0);
                  out.writeByte(8); // headless: a version 3 flag
                  out.writeInt(0);
                }),
            (short) 2),
        LoadFailure.MALFORMED,
        "traffic flags");
  }

  @Test
  void headlessAndExternalNameSurviveTheRoundTripAndALongExternalNameIsRefused() throws Exception {
    ServiceKey alias = new ServiceKey("shop", "alias");
    ServiceKey db = new ServiceKey("shop", "db");
    RoutingTable table =
        RoutingTable.restored(
            5,
            List.of(
                new ServiceEndpoints(
                    alias,
                    3,
                    List.of(),
                    List.of(),
                    ServiceTraffic.of(null, false, false, "db.example.com")),
                new ServiceEndpoints(
                    db,
                    4,
                    List.of(
                        new Endpoint(
                            "10.0.0.1", List.of(), "zone-a", "node-1", null, true, true, false)),
                    List.of(),
                    ServiceTraffic.of("PreferClose", false, true, null))),
            RandomTables.T0,
            8);

    RoutingTable back =
        TableCodec.decode(TableCodec.encode(table, RandomTables.T0, SYNCED), NOW, 8).table();

    assertThat(back.get(alias).orElseThrow().traffic())
        .isEqualTo(ServiceTraffic.of(null, false, false, "db.example.com"));
    assertThat(back.get(db).orElseThrow().traffic())
        .isEqualTo(ServiceTraffic.of("PreferClose", false, true, null));
    rejected(
        sealed(
            body(
                out -> {
                  out.writeInt(1);
                  out.writeShort(1);
                  out.writeBytes("a");
                  out.writeShort(1);
                  out.writeBytes("x");
                  out.writeLong(1);
                  out.writeInt(0);
                  out.writeByte(16); // an external name
                  out.writeShort(254);
                  out.writeBytes("a".repeat(254));
                  out.writeInt(0);
                })),
        LoadFailure.MALFORMED,
        "external name");
  }

  /** Service a/x at version 1, no ports, the traffic flags given, no endpoints. */
  private static byte[] oneService(int trafficFlags) throws IOException {
    return body(
        out -> {
          serviceHead(out);
          out.writeByte(trafficFlags);
          out.writeInt(0);
        });
  }

  /**
   * Service a/x at version 1 with one endpoint 10.0.0.1 (ready, serving), its flags ORed with
   * {@code extraFlags}, {@code afterHints} written where version 3 puts the additional addresses.
   */
  private static byte[] oneEndpoint(int extraFlags, BodyWriter afterHints) throws IOException {
    return body(
        out -> {
          serviceHead(out);
          out.writeByte(0);
          out.writeInt(1);
          out.writeShort(8);
          out.writeBytes("10.0.0.1");
          out.writeByte(1 | 2 | extraFlags);
          afterHints.write(out);
          out.writeInt(0);
        });
  }

  private static void serviceHead(DataOutputStream out) throws IOException {
    out.writeInt(1);
    out.writeShort(1);
    out.writeBytes("a");
    out.writeShort(1);
    out.writeBytes("x");
    out.writeLong(1);
    out.writeInt(0);
  }

  private static void writeAddresses(DataOutputStream out, String... addresses) throws IOException {
    out.writeByte(addresses.length);
    for (String address : addresses) {
      out.writeShort(address.length());
      out.writeBytes(address);
    }
  }

  @Test
  void hintsAndTrafficSettingsSurviveTheRoundTrip() throws Exception {
    ServiceKey key = new ServiceKey("shop", "web");
    EndpointHints hints = EndpointHints.of(List.of("zone-a"), List.of("node-1"));
    RoutingTable table =
        RoutingTable.restored(
            5,
            List.of(
                new ServiceEndpoints(
                    key,
                    3,
                    List.of(
                        new Endpoint(
                            "10.0.0.1",
                            List.of(),
                            "zone-a",
                            hints,
                            "node-1",
                            null,
                            true,
                            true,
                            false),
                        new Endpoint(
                            "10.0.0.2", List.of(), "zone-b", "node-2", null, true, true, false)),
                    List.of(),
                    ServiceTraffic.of("PreferClose", true))),
            RandomTables.T0,
            8);

    RoutingTable back =
        TableCodec.decode(TableCodec.encode(table, RandomTables.T0, SYNCED), NOW, 8).table();

    ServiceEndpoints entry = back.get(key).orElseThrow();
    assertThat(entry.traffic()).isEqualTo(ServiceTraffic.of("PreferClose", true));
    assertThat(entry.endpoints().get(0).hints()).isEqualTo(hints);
    assertThat(entry.endpoints().get(1).hints()).isSameAs(EndpointHints.NONE);
  }

  private interface BodyWriter {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] body(BodyWriter writer) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    writer.write(out);
    out.flush();
    return bytes.toByteArray();
  }

  /** Services with no ports and no endpoints at {@code version}, in a table at version 10. */
  private static byte[] services(String[][] keys, long version) throws IOException {
    return services(keys, version, TableCodec.FORMAT_VERSION);
  }

  private static byte[] services(String[][] keys, long version, int format) throws IOException {
    return body(
        out -> {
          out.writeInt(keys.length);
          for (String[] key : keys) {
            out.writeShort(key[0].length());
            out.writeBytes(key[0]);
            out.writeShort(key[1].length());
            out.writeBytes(key[1]);
            out.writeLong(version);
            out.writeInt(0);
            if (format >= 2) {
              out.writeByte(0);
            }
            out.writeInt(0);
          }
        });
  }

  /** A header for a table at version 10 and a valid checksum around {@code body}. */
  private static byte[] sealed(byte[] body) {
    return sealed(body, TableCodec.FORMAT_VERSION);
  }

  private static byte[] sealed(byte[] body, short format) {
    long micros = RandomTables.T0.getEpochSecond() * 1_000_000L;
    byte[] header =
        ByteBuffer.allocate(TableCodec.HEADER_BYTES)
            .putInt(TableCodec.MAGIC)
            .putShort(format)
            .putShort((short) 0)
            .putLong(10)
            .putLong(micros)
            .putLong(0)
            .putInt(body.length)
            .array();
    CRC32C crc = new CRC32C();
    crc.update(body);
    crc.update(header);
    return ByteBuffer.allocate(header.length + body.length + 4)
        .put(header)
        .put(body)
        .putInt((int) crc.getValue())
        .array();
  }

  private static byte[] sample() {
    Random random = new Random(SEED);
    RoutingTable table = RandomTables.table(random);
    while (table.endpointCount() < 10) {
      table = RandomTables.table(random);
    }
    return TableCodec.encode(table, RandomTables.T0, SYNCED);
  }

  private static void rejected(byte[] file, LoadFailure reason, String what) {
    ThrowingCallable decode = () -> TableCodec.decode(file, NOW, 1024);
    assertThatThrownBy(decode)
        .as(what)
        .isInstanceOfSatisfying(
            StateFormatException.class,
            e -> assertThat(e.reason()).as(what + ": " + e.getMessage()).isEqualTo(reason));
  }
}
