package dev.routesync.testing;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A grpc-java marshaller that leaves messages as bytes: for tests that send what no generated stub
 * would (a malformed message) or compare what the agent wrote byte for byte.
 */
public final class RawBytes implements MethodDescriptor.Marshaller<byte[]> {

  public static final RawBytes MARSHALLER = new RawBytes();

  private RawBytes() {}

  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try {
      return stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
