package dev.routesync.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * The last line of defence against a hung test run: a hang that JUnit's per-method timeout cannot
 * interrupt (a blocked socket read, a stuck extension) is killed by surefire's {@code
 * forkedProcessTimeoutInSeconds}, which says nothing about where it hung. This prints every
 * thread's stack to stderr and halts the fork when no test or container has started or finished for
 * {@code routesync.test.watchdog.seconds} (the pom sets it).
 *
 * <p>It measures silence, not the length of the run: a run on a loaded machine is slow, not hung,
 * and a deadline on the whole run halted a healthy suite that two busy loops had slowed past it.
 *
 * <p>Loaded twice by the launcher's service loader, as the session listener that starts the timer
 * and as the execution listener that reports progress; the two share {@link #LAST_PROGRESS}.
 */
public final class TestWatchdog implements LauncherSessionListener, TestExecutionListener {

  /** What the fork exits with when the watchdog fires. */
  static final int HUNG_EXIT_CODE = 86;

  private static final Silence LAST_PROGRESS = new Silence(System::nanoTime);

  private ScheduledExecutorService timer;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    String seconds = System.getProperty("routesync.test.watchdog.seconds", "");
    if (seconds.isBlank()) {
      return;
    }
    long limitNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(seconds.trim()));
    LAST_PROGRESS.progressed();
    timer =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "routesync-test-watchdog");
              thread.setDaemon(true);
              return thread;
            });
    timer.scheduleWithFixedDelay(
        () -> {
          if (LAST_PROGRESS.longerThan(limitNanos)) {
            dumpAllThreadsAndHalt(seconds.trim());
          }
        },
        1,
        1,
        TimeUnit.SECONDS);
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  @Override
  public void executionStarted(TestIdentifier test) {
    LAST_PROGRESS.progressed();
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    LAST_PROGRESS.progressed();
  }

  /** How long since the run last made progress, on a clock the caller gives. */
  static final class Silence {
    private final LongSupplier nanoClock;
    private volatile long lastProgress;

    Silence(LongSupplier nanoClock) {
      this.nanoClock = nanoClock;
      this.lastProgress = nanoClock.getAsLong();
    }

    void progressed() {
      lastProgress = nanoClock.getAsLong();
    }

    boolean longerThan(long nanos) {
      return nanoClock.getAsLong() - lastProgress > nanos;
    }
  }

  private static void dumpAllThreadsAndHalt(String seconds) {
    StringBuilder dump =
        new StringBuilder("\n!!! routesync test watchdog: no test started or finished for ")
            .append(seconds)
            .append(" s, the test run is hung; all threads:\n");
    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      dump.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
      if (info.getLockName() != null) {
        dump.append(" on ").append(info.getLockName());
      }
      dump.append('\n');
      for (StackTraceElement frame : info.getStackTrace()) {
        dump.append("    at ").append(frame).append('\n');
      }
    }
    System.err.println(dump);
    System.err.flush();
    Runtime.getRuntime().halt(HUNG_EXIT_CODE);
  }
}
