package dev.routesync.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The last line of defence against a hung test run: a hang that JUnit's per-method timeout cannot
 * interrupt (a blocked socket read, a stuck extension) is killed by surefire's {@code
 * forkedProcessTimeoutInSeconds}, which says nothing about where it hung. This prints every
 * thread's stack to stderr shortly before that, so the CI log shows the culprit.
 *
 * <p>Armed when the system property {@code routesync.test.watchdog.seconds} is set (the pom sets it
 * a minute below the fork timeout).
 */
public final class TestWatchdog implements LauncherSessionListener {

  /** What the fork exits with when the watchdog fires. */
  static final int HUNG_EXIT_CODE = 86;

  private ScheduledExecutorService timer;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    String seconds = System.getProperty("routesync.test.watchdog.seconds", "");
    if (seconds.isBlank()) {
      return;
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "routesync-test-watchdog");
              thread.setDaemon(true);
              return thread;
            });
    timer.schedule(TestWatchdog::dumpAllThreads, Long.parseLong(seconds.trim()), TimeUnit.SECONDS);
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  private static void dumpAllThreads() {
    StringBuilder dump =
        new StringBuilder("\n!!! routesync test watchdog: the test run is hung; all threads:\n");
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
