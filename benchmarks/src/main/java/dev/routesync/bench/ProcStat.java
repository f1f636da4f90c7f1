package dev.routesync.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A process's CPU from {@code /proc/<pid>/stat} (utime + stime, the whole process, every thread,
 * child threads that ended included), and per thread from {@code /proc/<pid>/task/<tid>/stat},
 * grouped by thread name with a trailing number dropped ("GC Thread#0" and "GC Thread#1" are "GC
 * Thread"; Linux keeps 15 characters of a name). Ticks are USER_HZ: 100 per second on Linux x86-64
 * (10 ms each).
 */
final class ProcStat {

  static final double MS_PER_TICK = 10.0;

  private ProcStat() {}

  /** utime + stime of the process, in ticks. */
  static long ticks(long pid) throws IOException {
    return ticksOf(Files.readString(Path.of("/proc", String.valueOf(pid), "stat")));
  }

  /** Ticks per thread id, with each thread's name. */
  static Map<Long, Thread> threads(long pid) {
    Map<Long, Thread> threads = new HashMap<>();
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid), "task"))) {
      for (Path task : tasks) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          threads.put(
              Long.parseLong(task.getFileName().toString()), new Thread(name, ticksOf(stat)));
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      // the process ended
    }
    return threads;
  }

  record Thread(String name, long ticks) {}

  /** Resident memory now and at its peak, from {@code /proc/<pid>/status}. */
  record Memory(long rssKiB, long peakRssKiB) {}

  static Memory memory(long pid) throws IOException {
    long rss = -1;
    long peak = -1;
    for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = kib(line);
      } else if (line.startsWith("VmHWM:")) {
        peak = kib(line);
      }
    }
    return new Memory(rss, peak);
  }

  private static long kib(String statusLine) {
    // "VmRSS:\t  123456 kB"
    return Long.parseLong(statusLine.replaceAll("[^0-9]", ""));
  }

  /** Milliseconds of CPU per thread-name group between two {@link #threads} readings. */
  static Map<String, Double> byName(Map<Long, Thread> before, Map<Long, Thread> after) {
    Map<String, Double> groups = new TreeMap<>();
    after.forEach(
        (tid, thread) -> {
          long was = before.containsKey(tid) ? before.get(tid).ticks() : 0;
          long delta = thread.ticks() - was;
          if (delta > 0) {
            groups.merge(group(thread.name()), delta * MS_PER_TICK, Double::sum);
          }
        });
    return groups;
  }

  static String group(String name) {
    return name.replaceAll("#?[0-9]+$", "").replaceAll("[-_ ]+$", "");
  }

  private static long ticksOf(String stat) {
    // Fields after the ")" of the name: state is field 3, utime 14, stime 15.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
