package dev.routesync.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * One random fault schedule: a few steps, each a burst of writes or a fault. Drawn from the run's
 * seeded random, so {@code -Dfaults.seed=N} replays every schedule's steps and writes.
 *
 * @param index the schedule's place in the run
 * @param writeSeed seeds the writes and fault draws made while the schedule runs
 */
record Schedule(int index, List<Step> steps, long writeSeed) {

  /** What a step does. */
  enum Kind {
    /** Writes while the agent is connected. */
    WRITES,
    /**
     * The API server restarts holding other objects: a new server with the old one's objects plus
     * {@code writes} more changes made while the agent is cut off (longer than relist-after), so
     * only a relist finds the deletions.
     */
    API_RESTART,
    /**
     * The agent's watches are black-holed (open, forwarding nothing) while {@code writes} changes
     * are made; the watch-silence watchdog or, without it, a cut of the stuck connections recovers.
     */
    BLACK_HOLE,
    /**
     * A fraction {@code rate} of requests is answered 429 with {@code Retry-After: 1}, the watches
     * are dropped so that the agent asks again, and {@code writes} changes are made meanwhile.
     */
    THROTTLE,
    /** As THROTTLE, answered 500 with a Status body. */
    SERVER_ERRORS,
    /**
     * The watches drop, {@code writes} changes are made, and the slice watch's resumption is
     * answered with an in-stream 410 Gone whatever it missed, so fabric8 relists in place.
     */
    GONE,
    /**
     * The agent dies without draining (once its state file holds its last version); {@code writes}
     * changes are made; a new agent starts from the state file.
     */
    KILL_AND_RESTART,
    /**
     * As KILL_AND_RESTART, and the state file is corrupted before the new agent starts: truncated,
     * bit-flipped or emptied ({@code faults} picks which).
     */
    CORRUPT_STATE;

    boolean isFault() {
      return this != WRITES;
    }
  }

  /** How CORRUPT_STATE damages the state file. */
  enum Corruption {
    TRUNCATED,
    BIT_FLIPPED,
    EMPTY;

    static Corruption of(int draw) {
      return values()[draw % values().length];
    }
  }

  /**
   * @param writes writes made during the step
   * @param rate the fraction of requests faulted (THROTTLE, SERVER_ERRORS)
   * @param faults how many requests are faulted before the window closes
   */
  record Step(Kind kind, int writes, double rate, int faults) {
    @Override
    public String toString() {
      return switch (kind) {
        case WRITES -> "WRITES(" + writes + ")";
        case THROTTLE, SERVER_ERRORS -> kind + "(rate=" + rate + ", faults=" + faults + ")";
        case CORRUPT_STATE -> kind + "(writes=" + writes + ", " + Corruption.of(faults) + ")";
        default -> kind + "(writes=" + writes + ")";
      };
    }
  }

  /** The next schedule: two to four steps, one or two of them faults. */
  static Schedule draw(Random random, int index) {
    List<Step> steps = new ArrayList<>();
    int faults = 1 + (random.nextInt(3) == 0 ? 1 : 0);
    int writeBursts = 1 + random.nextInt(2);
    List<Boolean> order = new ArrayList<>();
    for (int i = 0; i < faults; i++) {
      order.add(true);
    }
    for (int i = 0; i < writeBursts; i++) {
      order.add(false);
    }
    java.util.Collections.shuffle(order, random);
    Kind[] kinds = Kind.values();
    for (boolean fault : order) {
      if (!fault) {
        steps.add(new Step(Kind.WRITES, 1 + random.nextInt(6), 0, 0));
        continue;
      }
      Kind kind = kinds[1 + random.nextInt(kinds.length - 1)];
      double rate = random.nextBoolean() ? 1.0 : 0.5;
      steps.add(new Step(kind, random.nextInt(4), rate, 1 + random.nextInt(4)));
    }
    return new Schedule(index, List.copyOf(steps), random.nextLong());
  }

  @Override
  public String toString() {
    return "schedule "
        + index
        + " "
        + steps.stream().map(Step::toString).collect(Collectors.joining(", ", "[", "]"));
  }
}
