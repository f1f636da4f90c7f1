package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.routesync.testing.AgentHarness;
import dev.routesync.testing.LogCapture;
import dev.routesync.testing.MockCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Exceptions no handler took: a connection's end is counted and logged at DEBUG, not printed by
 * Vert.x at ERROR with its stack; anything else is a WARN, at most one every ten seconds.
 */
@Timeout(60)
class UnhandledExceptionsTest {

  @Test
  void theAgentsVertxCountsAConnectionsEndInsteadOfLoggingItAtError() throws Exception {
    try (MockCluster cluster = new MockCluster();
        AgentHarness agent = AgentHarness.start(cluster.url());
        LogCapture vertx = new LogCapture("io.vertx", Level.WARN);
        LogCapture ours = new LogCapture(UnhandledExceptions.class.getName(), Level.WARN)) {
      agent
          .agent()
          .vertx()
          .runOnContext(
              v -> {
                throw new IllegalStateException("Client is closed");
              });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  agent.counter("routesync.unhandled.exceptions", "kind", "connection_end") == 1.0);
      assertThat(vertx.atLeast(Level.WARN)).isEmpty();
      assertThat(ours.atLeast(Level.WARN)).isEmpty();
    }
  }

  @Test
  void anythingElseIsOneWarnEveryTenSecondsSayingHowManyWereLeftOut() {
    AtomicLong now = new AtomicLong();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    UnhandledExceptions handler = new UnhandledExceptions(registry, now::get);
    try (LogCapture logs = new LogCapture(UnhandledExceptions.class.getName(), Level.DEBUG)) {
      handler.handle(new NullPointerException("a defect"));
      handler.handle(new NullPointerException("again"));
      handler.handle(new NullPointerException("and again"));
      now.addAndGet(TimeUnit.SECONDS.toNanos(10));
      handler.handle(new IllegalArgumentException("later"));
      handler.handle(new IOException("Connection reset by peer"));

      assertThat(logs.atLeast(Level.WARN)).hasSize(2);
      assertThat(logs.lines().get(0)).contains("WARN").contains("a defect");
      assertThat(logs.lines())
          .filteredOn(line -> line.startsWith("WARN"))
          .last()
          .asString()
          .contains("2 more since the last")
          .contains("later");
      assertThat(logs.lines()).last().asString().startsWith("DEBUG").contains("Connection reset");
    }
    assertThat(registry.counter("routesync.unhandled.exceptions", "kind", "other").count())
        .isEqualTo(4);
    assertThat(registry.counter("routesync.unhandled.exceptions", "kind", "connection_end").count())
        .isEqualTo(1);
  }

  @Test
  void aPromiseCompletedTwiceIsADefectUnlessAConnectionsCloseRaisedIt() {
    assertThat(
            UnhandledExceptions.isConnectionEnd(
                new IllegalStateException("Promise already completed")))
        .isFalse();
    IllegalStateException onClose = new IllegalStateException("Promise already completed");
    onClose.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement("io.vertx.core.Promise", "fail", "Promise.java", 104),
          new StackTraceElement(
              "io.vertx.core.http.impl.Http1xClientConnection", "handleClosed", "x.java", 1199)
        });
    assertThat(UnhandledExceptions.isConnectionEnd(onClose)).isTrue();
  }
}
