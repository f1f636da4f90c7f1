package dev.routesync.lint;

import java.io.FilterReader;
import java.io.IOException;
import java.io.Reader;

/** A reader that fails once more than a fixed number of characters have passed through it. */
final class BoundedReader extends FilterReader {

  /** The input is larger than the bound. */
  static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    TooLargeException(long limit) {
      super("more than " + limit + " characters");
    }
  }

  private final long limit;
  private long read;

  BoundedReader(Reader in, long limit) {
    super(in);
    this.limit = limit;
  }

  @Override
  public int read() throws IOException {
    int c = super.read();
    if (c >= 0) {
      count(1);
    }
    return c;
  }

  @Override
  public int read(char[] buffer, int offset, int length) throws IOException {
    int n = super.read(buffer, offset, length);
    if (n > 0) {
      count(n);
    }
    return n;
  }

  private void count(int n) throws TooLargeException {
    read += n;
    if (read > limit) {
      throw new TooLargeException(limit);
    }
  }
}
