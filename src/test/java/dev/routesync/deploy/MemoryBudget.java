package dev.routesync.deploy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's memory budget under its container limit: the JVM's flags ({@link JvmLayout}) against
 * what {@code scripts/soak-memory.sh} measured with 1,000 Watch streams (docs/install.md's section,
 * "Memory budget", has the same figures). Kept here so that a change of the flags, or of the
 * DaemonSet's limit, that no longer fits fails the build instead of a node.
 *
 * <p>The rule: the heap is fixed ({@code -Xms} = {@code -Xmx}), every non-heap area the JVM can cap
 * is capped with room above its measured peak, and the whole still fits under the limit with a
 * margin when any one of them grows to its cap while the others stay at their measured peaks. Then
 * a runaway area fails inside the JVM (an {@code OutOfMemoryError}: metaspace, code cache full,
 * direct buffers) before the kernel's OOM killer sends a SIGKILL nobody can read.
 */
final class MemoryBudget {

  static final long MIB = 1 << 20;

  // Measured peaks, committed (NMT summary at the largest total) and cgroup anonymous memory; see
  // docs/install.md's table. Update them with a new soak when the agent's dependencies change.
  /** Metaspace, class space included (what -XX:MaxMetaspaceSize bounds). */
  static final long METASPACE = 65 * MIB;

  /** The code cache (what -XX:ReservedCodeCacheSize bounds). */
  static final long CODE_CACHE = 20 * MIB;

  /** Direct buffers, Netty's included (NMT "Other"; what -XX:MaxDirectMemorySize bounds). */
  static final long DIRECT = 6 * MIB;

  /** A ceiling on the agent's threads on 2 processors (-XX:ActiveProcessorCount=2): 24-28 seen. */
  static final int THREADS = 32;

  /** Committed stack of all threads together (NMT "Thread"). */
  static final long STACKS = 3 * MIB;

  /**
   * What the JVM has no cap for: symbols (13 MiB), the GC's tables, the C2 compiler's arenas (up to
   * 35 MiB while it compiles, returned by -XX:TrimNativeHeapInterval) and malloc's own overhead:
   * the cgroup's peak anonymous memory less NMT's own and every area above.
   */
  static final long UNCAPPED = 36 * MIB;

  /** Kept free under the limit in the worst case the rule allows. */
  static final double MARGIN = 0.05;

  /** Every cap at least this much above its measured peak, so normal operation never trips it. */
  static final double HEADROOM = 1.2;

  private MemoryBudget() {}

  /** The measured total: what the soak saw at its peak, with this heap. */
  static long measured(JvmLayout layout) {
    return layout.required("-Xmx") + METASPACE + CODE_CACHE + DIRECT + STACKS + UNCAPPED;
  }

  static void assertFits(JvmLayout layout, long limit) {
    long heap = layout.required("-Xmx");
    assertThat(layout.required("-Xms")).as("-Xms = -Xmx: the heap is fixed").isEqualTo(heap);
    long metaspace = layout.required("-XX:MaxMetaspaceSize=");
    long codeCache = layout.required("-XX:ReservedCodeCacheSize=");
    long direct = layout.required("-XX:MaxDirectMemorySize=");
    long stack = layout.required("-Xss");
    assertThat(metaspace).as("MaxMetaspaceSize vs measured").isGreaterThan(room(METASPACE));
    assertThat(codeCache).as("ReservedCodeCacheSize vs measured").isGreaterThan(room(CODE_CACHE));
    assertThat(direct).as("MaxDirectMemorySize vs measured").isGreaterThan(room(DIRECT));

    long measured = measured(layout);
    long worstOverrun =
        Math.max(
            Math.max(metaspace - METASPACE, codeCache - CODE_CACHE),
            Math.max(direct - DIRECT, THREADS * stack - STACKS));
    long worst = measured + worstOverrun;
    long allowed = (long) (limit * (1 - MARGIN));
    assertThat(worst)
        .as(
            "heap %d MiB + measured non-heap %d MiB + the largest cap overrun %d MiB"
                + " must stay under %d MiB (the %d MiB limit less %.0f%%)",
            heap / MIB,
            (measured - heap) / MIB,
            worstOverrun / MIB,
            allowed / MIB,
            limit / MIB,
            MARGIN * 100)
        .isLessThanOrEqualTo(allowed);
  }

  private static long room(long measured) {
    return (long) (measured * HEADROOM);
  }
}
