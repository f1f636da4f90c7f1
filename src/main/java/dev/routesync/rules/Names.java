package dev.routesync.rules;

import java.util.List;
import java.util.Optional;

/** The "did you mean" of a port name: the declared name fewest edits away. */
final class Names {

  private Names() {}

  /**
   * The candidate closest to {@code wanted} by edit distance, the first in order on a tie; empty
   * when there are no candidates. Always answers when there is one: in the seed's incident {@code
   * http} against {@code http-api} is four edits apart, and it is still the name to show.
   */
  static Optional<String> closest(String wanted, List<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = distance(wanted, candidate);
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Levenshtein distance; port names are at most 15 characters, so the table is tiny. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
