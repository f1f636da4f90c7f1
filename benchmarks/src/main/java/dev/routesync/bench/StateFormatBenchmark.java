package dev.routesync.bench;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import dev.routesync.state.PersistedTable;
import dev.routesync.state.TableCodec;
import dev.routesync.table.Endpoint;
import dev.routesync.table.EndpointHints;
import dev.routesync.table.Port;
import dev.routesync.table.RoutingTable;
import dev.routesync.table.ServiceEndpoints;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceState;
import dev.routesync.table.TableWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The state file's hand-written format ({@link TableCodec}) against protobuf: the same table of
 * 1,000 Services x 25 endpoints (built through a {@link TableWriter} as the state tests build
 * theirs, endpoints from {@link Tables}), encoded and decoded back to a {@link RoutingTable}.
 *
 * <p>The protobuf candidate keeps TableCodec's frame: the same 36-byte header, a CRC32C over body
 * and header, the same size cap checked before parsing; the body is one length-delimited {@code
 * routesync.v1.ServiceEndpoints} per Service (namespace, name, version, endpoints with their ports,
 * zone, node, pod, conditions and hints). Those messages do not carry a Service's declared ports
 * and traffic settings, which TableCodec writes, so the protobuf body holds slightly less. Decoding
 * builds the same records and calls {@link RoutingTable#restored}, as TableCodec does, but checks
 * none of TableCodec's bounds (key order, string and count limits), so it is a lower bound of what
 * a strict protobuf reader would cost.
 *
 * <p>The encoded sizes are printed once at setup ({@code state-format: ...}). Run: {@code java -jar
 * benchmarks/target/benchmarks.jar StateFormatBenchmark -f 1 -wi 2 -i 3}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class StateFormatBenchmark {

  static final int SERVICES = 1_000;
  static final int ENDPOINTS = 25;
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final int DELTA_LOG = 1024;

  RoutingTable table;
  byte[] tableCodecFile;
  byte[] protobufFile;

  @Setup
  public void setUp() throws Exception {
    TableWriter writer = new TableWriter(Clock.fixed(T0, ZoneOffset.UTC), DELTA_LOG, 1);
    Map<ServiceKey, ServiceState> upserts = new HashMap<>();
    for (int s = 0; s < SERVICES; s++) {
      upserts.put(Tables.key(s), new ServiceState(Tables.endpoints(s, ENDPOINTS, 0), Tables.HTTP));
    }
    writer.publish(upserts, Set.of());
    table = writer.current();
    tableCodecFile = TableCodec.encode(table, T0, Optional.of(T0));
    protobufFile = protobufEncode(table);
    if (protobufDecode(protobufFile).serviceCount() != SERVICES
        || TableCodec.decode(tableCodecFile, T0, DELTA_LOG).table().serviceCount() != SERVICES) {
      throw new IllegalStateException("a format lost Services");
    }
    System.out.printf(
        "state-format: %d Services x %d endpoints: TableCodec %d bytes, protobuf %d bytes%n",
        SERVICES, ENDPOINTS, tableCodecFile.length, protobufFile.length);
  }

  @Benchmark
  public byte[] tableCodecEncode() {
    return TableCodec.encode(table, T0, Optional.of(T0));
  }

  @Benchmark
  public PersistedTable tableCodecDecode() throws Exception {
    return TableCodec.decode(tableCodecFile, T0, DELTA_LOG);
  }

  @Benchmark
  public byte[] protobufEncode() throws IOException {
    return protobufEncode(table);
  }

  @Benchmark
  public RoutingTable protobufDecode() throws IOException {
    return protobufDecode(protobufFile);
  }

  static byte[] protobufEncode(RoutingTable table) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
    out.write(new byte[TableCodec.HEADER_BYTES]);
    CodedOutputStream coded = CodedOutputStream.newInstance(out, 64 * 1024);
    for (ServiceEndpoints service : table.services()) {
      coded.writeMessageNoTag(message(service));
    }
    coded.flush();
    byte[] file = out.toByteArray();
    int bodyLength = file.length - TableCodec.HEADER_BYTES;
    ByteBuffer.wrap(file, 0, TableCodec.HEADER_BYTES)
        .putInt(TableCodec.MAGIC)
        .putShort((short) 4)
        .putShort((short) 0)
        .putLong(table.version())
        .putLong(T0.toEpochMilli() * 1000)
        .putLong(T0.toEpochMilli() * 1000)
        .putInt(bodyLength);
    CRC32C crc = new CRC32C();
    crc.update(file, TableCodec.HEADER_BYTES, bodyLength);
    crc.update(file, 0, TableCodec.HEADER_BYTES);
    byte[] framed = new byte[file.length + TableCodec.TRAILER_BYTES];
    System.arraycopy(file, 0, framed, 0, file.length);
    ByteBuffer.wrap(framed, file.length, 4).putInt((int) crc.getValue());
    return framed;
  }

  static RoutingTable protobufDecode(byte[] file) throws IOException {
    ByteBuffer header = ByteBuffer.wrap(file, 0, TableCodec.HEADER_BYTES);
    if (file.length > TableCodec.MAX_FILE_BYTES || header.getInt() != TableCodec.MAGIC) {
      throw new IOException("not a state file");
    }
    header.getShort();
    header.getShort();
    long version = header.getLong();
    header.getLong();
    header.getLong();
    int bodyLength = header.getInt();
    if (bodyLength != file.length - TableCodec.HEADER_BYTES - TableCodec.TRAILER_BYTES) {
      throw new IOException("truncated");
    }
    CRC32C crc = new CRC32C();
    crc.update(file, TableCodec.HEADER_BYTES, bodyLength);
    crc.update(file, 0, TableCodec.HEADER_BYTES);
    if ((int) crc.getValue()
        != ByteBuffer.wrap(file, TableCodec.HEADER_BYTES + bodyLength, 4).getInt()) {
      throw new IOException("checksum");
    }
    CodedInputStream in = CodedInputStream.newInstance(file, TableCodec.HEADER_BYTES, bodyLength);
    List<ServiceEndpoints> services = new ArrayList<>();
    while (!in.isAtEnd()) {
      dev.routesync.api.v1.ServiceEndpoints.Builder builder =
          dev.routesync.api.v1.ServiceEndpoints.newBuilder();
      in.readMessage(builder, com.google.protobuf.ExtensionRegistryLite.getEmptyRegistry());
      services.add(record(builder.build()));
    }
    return RoutingTable.restored(version, services, T0, DELTA_LOG);
  }

  private static dev.routesync.api.v1.ServiceEndpoints message(ServiceEndpoints service) {
    dev.routesync.api.v1.ServiceEndpoints.Builder builder =
        dev.routesync.api.v1.ServiceEndpoints.newBuilder()
            .setNamespace(service.key().namespace())
            .setName(service.key().name())
            .setVersion(service.version());
    for (Endpoint endpoint : service.endpoints()) {
      dev.routesync.api.v1.Endpoint.Builder e =
          dev.routesync.api.v1.Endpoint.newBuilder()
              .setIp(endpoint.ip())
              .setZone(orEmpty(endpoint.zone()))
              .setNode(orEmpty(endpoint.node()))
              .setPod(orEmpty(endpoint.pod()))
              .setReady(endpoint.ready())
              .setServing(endpoint.serving())
              .setTerminating(endpoint.terminating());
      EndpointHints hints = endpoint.hints();
      if (!hints.isEmpty()) {
        e.setHints(
            dev.routesync.api.v1.EndpointHints.newBuilder()
                .addAllForZones(hints.forZones())
                .addAllForNodes(hints.forNodes()));
      }
      for (Port port : endpoint.ports()) {
        e.addPorts(
            dev.routesync.api.v1.Port.newBuilder()
                .setName(port.name())
                .setPort(port.port())
                .setProtocol(port.protocol()));
      }
      builder.addEndpoints(e);
    }
    return builder.build();
  }

  private static ServiceEndpoints record(dev.routesync.api.v1.ServiceEndpoints message) {
    List<Endpoint> endpoints = new ArrayList<>(message.getEndpointsCount());
    for (dev.routesync.api.v1.Endpoint e : message.getEndpointsList()) {
      List<Port> ports = new ArrayList<>(e.getPortsCount());
      for (dev.routesync.api.v1.Port p : e.getPortsList()) {
        ports.add(new Port(p.getName(), p.getPort(), p.getProtocol()));
      }
      endpoints.add(
          new Endpoint(
              e.getIp(),
              ports,
              nullIfEmpty(e.getZone()),
              nullIfEmpty(e.getNode()),
              nullIfEmpty(e.getPod()),
              e.getReady(),
              e.getServing(),
              e.getTerminating()));
    }
    return new ServiceEndpoints(
        new ServiceKey(message.getNamespace(), message.getName()),
        message.getVersion(),
        endpoints,
        Tables.HTTP);
  }

  private static String orEmpty(String text) {
    return text == null ? "" : text;
  }

  private static String nullIfEmpty(String text) {
    return text.isEmpty() ? null : text;
  }
}
