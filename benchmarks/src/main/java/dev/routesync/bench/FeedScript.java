package dev.routesync.bench;

import java.util.Random;

/**
 * The scripted feed's choice of which object each write changes: deterministic for a seed, so the
 * feed process and the process that checks convergence compute the same sequence without sending
 * it. {@code skewed}: a few objects take most writes (index = n · u³, u uniform: the first tenth of
 * the objects takes about 46% of the writes), as a rollout or a flapping readiness probe
 * concentrates churn on some Services; otherwise uniform.
 */
record FeedScript(int objects, long seed, boolean skewed) {

  /** The objects written, in order, by {@code count} writes. */
  int[] targets(int count) {
    Random random = new Random(seed);
    int[] targets = new int[count];
    for (int i = 0; i < count; i++) {
      if (skewed) {
        double u = random.nextDouble();
        targets[i] = Math.min(objects - 1, (int) (objects * u * u * u));
      } else {
        targets[i] = random.nextInt(objects);
      }
    }
    return targets;
  }

  /** The pod name of endpoint {@code k} written by write {@code seq}: carries the sequence. */
  static String pod(long seq, int k) {
    return "p-" + seq + "-" + k;
  }

  /** The sequence number a pod name written by {@link #pod} carries, or -1. */
  static long seqOf(String pod) {
    int dash = pod.indexOf('-', 2);
    if (!pod.startsWith("p-") || dash < 0) {
      return -1;
    }
    try {
      return Long.parseLong(pod, 2, dash, 10);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Endpoint {@code k}'s IPv4 address in object {@code index} at write {@code seq}. */
  static String ip(int index, long seq, int k) {
    return "10." + (index / 250) + "." + (index % 250) + "." + (1 + (seq + k) % 250);
  }

  static String name(int index) {
    return "svc-" + index;
  }

  /** The index in a name written by {@link #name} (or a slice name {@code svc-<i>-x}), or -1. */
  static int indexOf(String name) {
    if (!name.startsWith("svc-")) {
      return -1;
    }
    int end = name.indexOf('-', 4);
    try {
      return Integer.parseInt(name, 4, end < 0 ? name.length() : end, 10);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
