package dev.routesync.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One table size's k = 100 flush, timed second by second for a while, with the CPU the thread ran
 * on: shows whether a slow stretch follows the table, the CPU, the GC, or none of them. Not JMH:
 * JMH averages an iteration and starts the next one somewhere else, which hides a slow stretch's
 * start and end.
 *
 * <p>What it showed on 2026-12-02 (2-core VM, {@code -Xms1g -Xmx1g}, G1): stretches of seconds to
 * tens of seconds in which a flush is 30% to 50% slower, at 1k Services as at 100k, starting and
 * ending without a CPU change and with no GC but young pauses (1% to 1.5% of the time, fewer per
 * second inside a stretch, since fewer flushes allocate less). Outside them, 100k against 1k is
 * steady at about 1.4x ({@code benchmarks/results/2026-12-02-FlushSeconds.txt}).
 *
 * <pre>
 * java -Xms1g -Xmx1g -Xlog:gc:file=gc.log:uptime -cp benchmarks/target/benchmarks.jar \
 *     dev.routesync.bench.FlushSeconds 100000 40
 * </pre>
 */
public final class FlushSeconds {

  private static final int K = 100;
  private static final int ENDPOINTS_PER_SERVICE = 5;

  /** Flushes between two reads of the clock, so that reading it costs next to nothing. */
  private static final int FLUSHES_PER_CLOCK_READ = 100;

  /** Flushes between two reads of the thread's CPU (a file read). */
  private static final int FLUSHES_PER_CPU_READ = 1_000;

  private FlushSeconds() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: FlushSeconds <services> <seconds>");
      System.exit(2);
    }
    int services = Integer.parseInt(args[0]);
    int seconds = Integer.parseInt(args[1]);
    FlushFixture table = new FlushFixture(services, K, ENDPOINTS_PER_SERVICE);
    long versions = 0;
    for (int second = 0; second < seconds; second++) {
      long start = System.nanoTime();
      long end = start + 1_000_000_000L;
      long flushes = 0;
      int firstCpu = cpu();
      int cpu = firstCpu;
      int moves = 0;
      long now;
      while ((now = System.nanoTime()) < end) {
        for (int i = 0; i < FLUSHES_PER_CLOCK_READ; i++) {
          versions += table.flush().version() & 1;
        }
        flushes += FLUSHES_PER_CLOCK_READ;
        if (flushes % FLUSHES_PER_CPU_READ == 0) {
          int current = cpu();
          if (current != cpu) {
            moves++;
            cpu = current;
          }
        }
      }
      System.out.printf(
          Locale.ROOT,
          "services=%d second=%d flush_us=%.2f cpu=%d->%d moves=%d%n",
          services,
          second,
          (now - start) / 1_000.0 / flushes,
          firstCpu,
          cpu,
          moves);
    }
    // Keeps the flushes' results live, so that nothing is optimised away.
    System.out.println("odd versions: " + versions);
  }

  /** The CPU this thread last ran on: field 39 of /proc/thread-self/stat. */
  private static int cpu() throws IOException {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"));
    // Fields after the command's closing parenthesis start at field 3.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[39 - 3]);
  }
}
