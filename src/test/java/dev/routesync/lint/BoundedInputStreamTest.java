package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The whole-input bound for streams (64 MiB in lint), shown at a size a test can afford. */
class BoundedInputStreamTest {

  private static final byte[] TEN = "0123456789".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  @Test
  void readsUpToTheLimitAndFailsPastIt() throws IOException {
    byte[] buffer = new byte[8];
    try (BoundedInputStream in = new BoundedInputStream(new ByteArrayInputStream(TEN), 9)) {
      assertThat(in.read(buffer, 0, 8)).isEqualTo(8);
      assertThat(in.read()).isEqualTo('8');
      assertThatThrownBy(in::read)
          .isInstanceOf(BoundedInputStream.TooLargeException.class)
          .hasMessage("more than 9 bytes");
    }
  }

  @Test
  void exactlyTheLimitIsFine() throws IOException {
    byte[] buffer = new byte[16];
    try (BoundedInputStream in = new BoundedInputStream(new ByteArrayInputStream(TEN), 10)) {
      assertThat(in.read(buffer, 0, 16)).isEqualTo(10);
      assertThat(in.read(buffer, 0, 16)).isEqualTo(-1);
    }
  }
}
