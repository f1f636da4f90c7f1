package dev.routesync.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReasonsTest {

  @Test
  void theReasonIsTheInnermostCause() {
    Throwable error =
        new IllegalStateException(
            "cannot start", new UncheckedIOException(new NoSuchFileException("/etc/x")));

    assertThat(Reasons.of(error)).isEqualTo("no such file");
  }

  @Test
  void aCauseChainThatLoopsStillGivesAReason() {
    IllegalStateException outer = new IllegalStateException("outer");
    IOException inner = new IOException("disk on fire\nsecond line");
    outer.initCause(inner);
    inner.initCause(outer);

    String reason =
        assertTimeoutPreemptively(
            Duration.ofSeconds(5), () -> Reasons.of(outer), "a looping chain must not hang");

    assertThat(reason).isEqualTo("disk on fire");
  }
}
