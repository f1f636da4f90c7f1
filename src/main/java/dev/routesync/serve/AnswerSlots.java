package dev.routesync.serve;

import java.util.ArrayDeque;
import java.util.Queue;

/**
 * How many large answers are written at once, and how many may wait for a turn. Each answer in
 * progress holds one chunk and its connection's write queue; the slots bound that over every
 * client, and the waiting line bounds what a crowd of requests holds (a request, nothing built).
 * Beyond the line a request is refused at once, with a status that tells the client to retry.
 *
 * <p>Threading: any event loop; every method holds the monitor only to count.
 */
final class AnswerSlots {

  private final int slots;
  private final int maxWaiting;
  private final Queue<Runnable> waiting = new ArrayDeque<>();
  private int busy;

  AnswerSlots(int slots, int maxWaiting) {
    if (slots < 1 || maxWaiting < 0) {
      throw new IllegalArgumentException(
          "slots >= 1 and maxWaiting >= 0: " + slots + ", " + maxWaiting);
    }
    this.slots = slots;
    this.maxWaiting = maxWaiting;
  }

  /**
   * Runs {@code answer} now when a slot is free, else when one is; false (and never runs it) when
   * the waiting line is full. Whoever runs must call {@link #leave} once when the answer ends.
   */
  boolean enter(Runnable answer) {
    synchronized (this) {
      if (busy >= slots) {
        if (waiting.size() >= maxWaiting) {
          return false;
        }
        waiting.add(answer);
        return true;
      }
      busy++;
    }
    answer.run();
    return true;
  }

  /** An answer ended: the slot goes to the next in line, if any. */
  void leave() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        busy--;
        return;
      }
    }
    next.run(); // the slot passes on: busy stays
  }

  synchronized int busy() {
    return busy;
  }

  synchronized int waiting() {
    return waiting.size();
  }
}
