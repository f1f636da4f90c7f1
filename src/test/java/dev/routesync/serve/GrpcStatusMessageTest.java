package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GrpcStatusMessageTest {

  @Test
  void escapesOnlyBytesOutsidePrintableAsciiAndPercent() {
    assertThat(GrpcStatusMessage.percentEncoded("service shop/nope not found: a+b=c?~*"))
        .isEqualTo("service shop/nope not found: a+b=c?~*");
    assertThat(GrpcStatusMessage.percentEncoded("100%")).isEqualTo("100%25");
    assertThat(GrpcStatusMessage.percentEncoded("café\n\t")).isEqualTo("caf%C3%A9%0A%09");
    assertThat(GrpcStatusMessage.percentEncoded("\u007f")).isEqualTo("%7F");
    assertThat(GrpcStatusMessage.percentEncoded("")).isEmpty();
  }
}
