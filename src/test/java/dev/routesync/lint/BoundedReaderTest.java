package dev.routesync.lint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** The whole-input bound (64 MiB in lint), shown at a size a test can afford. */
class BoundedReaderTest {

  @Test
  void readsUpToTheLimitAndFailsPastIt() throws IOException {
    char[] buffer = new char[8];
    try (BoundedReader reader = new BoundedReader(new StringReader("0123456789"), 9)) {
      assertThat(reader.read(buffer, 0, 8)).isEqualTo(8);
      assertThat(reader.read()).isEqualTo('8');
      assertThatThrownBy(reader::read)
          .isInstanceOf(BoundedReader.TooLargeException.class)
          .hasMessage("more than 9 characters");
    }
  }

  @Test
  void exactlyTheLimitIsFine() throws IOException {
    char[] buffer = new char[16];
    try (BoundedReader reader = new BoundedReader(new StringReader("0123456789"), 10)) {
      assertThat(reader.read(buffer, 0, 16)).isEqualTo(10);
      assertThat(reader.read(buffer, 0, 16)).isEqualTo(-1);
    }
  }
}
