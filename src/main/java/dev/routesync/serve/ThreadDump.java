package dev.routesync.serve;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Every thread of the process as text, much as {@code jstack} prints it: name, id, daemon, state,
 * the lock it waits for and its owner, the whole stack with the monitors each frame holds, and the
 * ownable synchronizers held. {@link ThreadInfo#toString()} is not used: it cuts every stack at
 * eight frames, which hides where a stuck event loop or informer thread actually is.
 */
final class ThreadDump {

  private ThreadDump() {}

  /** A dump of every live thread, in thread-id order. */
  static String ofProcess() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    ThreadInfo[] infos =
        threads.dumpAllThreads(
            threads.isObjectMonitorUsageSupported(), threads.isSynchronizerUsageSupported());
    Arrays.sort(infos, Comparator.comparingLong(ThreadInfo::getThreadId));
    StringBuilder out = new StringBuilder();
    out.append(infos.length).append(" threads\n\n");
    for (ThreadInfo info : infos) {
      append(out, info);
      out.append('\n');
    }
    return out.toString();
  }

  static void append(StringBuilder out, ThreadInfo info) {
    out.append('"')
        .append(info.getThreadName())
        .append("\" #")
        .append(info.getThreadId())
        .append(info.isDaemon() ? " daemon" : "")
        .append(" prio=")
        .append(info.getPriority())
        .append(' ')
        .append(info.getThreadState());
    if (info.isSuspended()) {
      out.append(" (suspended)");
    }
    if (info.isInNative()) {
      out.append(" (in native)");
    }
    out.append('\n');
    if (info.getLockName() != null) {
      out.append("   waiting on ").append(info.getLockName());
      if (info.getLockOwnerName() != null) {
        out.append(" owned by \"")
            .append(info.getLockOwnerName())
            .append("\" #")
            .append(info.getLockOwnerId());
      }
      out.append('\n');
    }
    StackTraceElement[] stack = info.getStackTrace();
    MonitorInfo[] monitors = info.getLockedMonitors();
    for (int depth = 0; depth < stack.length; depth++) {
      out.append("\tat ").append(stack[depth]).append('\n');
      for (MonitorInfo monitor : monitors) {
        if (monitor.getLockedStackDepth() == depth) {
          out.append("\t- locked ").append(monitor).append('\n');
        }
      }
    }
    LockInfo[] synchronizers = info.getLockedSynchronizers();
    if (synchronizers.length > 0) {
      out.append("   locked synchronizers:\n");
      for (LockInfo lock : synchronizers) {
        out.append("\t- ").append(lock).append('\n');
      }
    }
  }
}
