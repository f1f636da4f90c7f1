package dev.routesync.table;

/**
 * Pod names split for memory: a Deployment's pods are named {@code <name>-<hash>-<suffix>} with a
 * 5-character suffix, so the part up to the last '-' is shared by every replica and the rest fits
 * in a {@code long}. The prefix is interned (one instance per live ReplicaSet, collected once no
 * endpoint holds it) and the suffix is packed as up to 8 ASCII characters, one per byte, the first
 * in the lowest. A suffix of 0 means "not split": the text is the whole name (no '-', nothing or
 * more than 8 characters after the last one, or a character outside 1-127).
 *
 * <p>The split is a function of the name, so two names are equal exactly when their prefixes are
 * equal and their suffixes are: equality and hashing never need the text back.
 */
final class PodNames {

  static final int MAX_SUFFIX = 8;

  /**
   * The prefix last interned. A racy cache is safe for a String (immutable, final fields); while it
   * hits, a slice of one Deployment's pods costs neither a substring nor an intern per endpoint.
   */
  private static String lastPrefix = "";

  private PodNames() {}

  /** The packed suffix of {@code pod}, or 0 when the name is kept whole. */
  static long suffix(String pod) {
    if (pod == null) {
      return 0;
    }
    int dash = pod.lastIndexOf('-');
    int length = pod.length() - dash - 1;
    if (dash < 0 || length == 0 || length > MAX_SUFFIX) {
      return 0;
    }
    long packed = 0;
    for (int i = 0; i < length; i++) {
      char c = pod.charAt(dash + 1 + i);
      if (c == 0 || c > 127) {
        return 0;
      }
      packed |= (long) c << (8 * i);
    }
    return packed;
  }

  /** What the endpoint keeps as text: the shared prefix when {@code suffix} is not 0. */
  static String text(String pod, long suffix) {
    if (suffix == 0) {
      return pod;
    }
    int prefixLength = pod.lastIndexOf('-') + 1;
    String last = lastPrefix;
    if (last.length() == prefixLength && pod.startsWith(last)) {
      return last;
    }
    String prefix = pod.substring(0, prefixLength).intern();
    lastPrefix = prefix;
    return prefix;
  }

  /** The name back from its parts. */
  static String join(String text, long suffix) {
    if (suffix == 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + MAX_SUFFIX).append(text);
    for (long rest = suffix; rest != 0; rest >>>= 8) {
      out.append((char) (rest & 0xFF));
    }
    return out.toString();
  }
}
