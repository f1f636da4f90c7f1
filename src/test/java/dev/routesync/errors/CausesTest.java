package dev.routesync.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CausesTest {

  @Test
  void theRootIsTheInnermostCause() {
    IOException root = new IOException("connection refused");
    Throwable error = new IllegalStateException("start", new UncheckedIOException(root));

    assertThat(Causes.root(error)).isSameAs(root);
  }

  @Test
  void aThrowableWithoutCauseIsItsOwnRoot() {
    IOException error = new IOException("no cause");

    assertThat(Causes.root(error)).isSameAs(error);
  }

  @Test
  void aLoopingChainEndsAtTheLastThrowableBeforeTheLoop() {
    IllegalStateException a = new IllegalStateException("a");
    IOException b = new IOException("b");
    a.initCause(b);
    b.initCause(a); // initCause refuses only a throwable as its own cause

    Throwable root =
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> Causes.root(a), "a loop must end");

    assertThat(root).isSameAs(b);
  }
}
