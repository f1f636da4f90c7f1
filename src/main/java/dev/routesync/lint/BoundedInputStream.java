package dev.routesync.lint;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A stream that fails once more than a fixed number of bytes have passed through it: the size bound
 * for what a stat cannot tell in advance (standard input, a pipe, a file that grows while it is
 * read).
 */
final class BoundedInputStream extends FilterInputStream {

  /** The input is larger than the bound. */
  static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    TooLargeException(long limit) {
      super("more than " + limit + " bytes");
    }
  }

  private final long limit;
  private long read;

  BoundedInputStream(InputStream in, long limit) {
    super(in);
    this.limit = limit;
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    if (b >= 0) {
      count(1);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = super.read(buffer, offset, length);
    if (n > 0) {
      count(n);
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = super.skip(n);
    if (skipped > 0) {
      count(skipped);
    }
    return skipped;
  }

  private void count(long n) throws TooLargeException {
    read += n;
    if (read > limit) {
      throw new TooLargeException(limit);
    }
  }
}
