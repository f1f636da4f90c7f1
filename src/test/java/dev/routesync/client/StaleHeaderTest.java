package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import dev.routesync.api.v1.StatusResponse;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StaleHeaderTest {

  private static final Timestamp HEARD =
      Timestamp.newBuilder().setSeconds(1_796_133_723L).setNanos(250_000_000).build();

  @Test
  void nothingWhileFresh() {
    assertThat(StaleHeader.of(false, Optional.of(HEARD), Optional.empty())).isEmpty();
  }

  @Test
  void sinceWhenAndWhyWhileDisconnected() {
    StatusResponse down =
        StatusResponse.newBuilder()
            .setTrust(StatusResponse.Trust.SYNCED)
            .setStale(true)
            .setDisconnectedFor(Duration.newBuilder().setSeconds(133))
            .build();
    assertThat(StaleHeader.of(true, Optional.of(HEARD), Optional.of(down)))
        .isEqualTo(
            "# stale: not confirmed by the Kubernetes API server since 2026-12-01T14:02:03Z"
                + " (disconnected for 2m13s)\n");
  }

  @Test
  void aRestoredTableNeverConfirmedSaysWhereItCameFrom() {
    StatusResponse restored =
        StatusResponse.newBuilder()
            .setTrust(StatusResponse.Trust.RESTORED)
            .setStale(true)
            .setDisconnectedFor(Duration.newBuilder().setSeconds(4).setNanos(500_000_000))
            .build();
    assertThat(StaleHeader.of(true, Optional.empty(), Optional.of(restored)))
        .isEqualTo(
            "# stale: not yet confirmed by the Kubernetes API server"
                + " (restored from the state file, disconnected for 4s)\n");
    assertThat(StaleHeader.of(true, Optional.empty(), Optional.empty()))
        .as("no Status to say why")
        .isEqualTo("# stale: not yet confirmed by the Kubernetes API server\n");
  }

  @Test
  void durationsInWholeUnits() {
    assertThat(StaleHeader.text(java.time.Duration.ZERO)).isEqualTo("0s");
    assertThat(StaleHeader.text(java.time.Duration.ofMillis(850))).isEqualTo("850ms");
    assertThat(StaleHeader.text(java.time.Duration.ofSeconds(12))).isEqualTo("12s");
    assertThat(StaleHeader.text(java.time.Duration.ofSeconds(3723))).isEqualTo("1h2m");
  }
}
