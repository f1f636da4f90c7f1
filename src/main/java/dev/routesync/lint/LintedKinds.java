package dev.routesync.lint;

/**
 * The kinds lint reads: v1 Services and the {@link LintedObjects.WorkloadKind}s. Documents of every
 * other kind are dropped as soon as their kind is known, before their content is built ({@link
 * ObjectFields}).
 */
final class LintedKinds {

  private LintedKinds() {}

  /** An object of this API group and kind is mapped and kept to the end of the run. */
  static boolean isLinted(String group, String kind) {
    if (group.isEmpty() && kind.equals("Service")) {
      return true;
    }
    for (LintedObjects.WorkloadKind candidate : LintedObjects.WorkloadKind.values()) {
      if (candidate.group.equals(group) && candidate.kind.equals(kind)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A document whose top level says so much may still hold something lint reads: its kind is
   * unknown yet, or linted, or a list ({@code List}, or a typed list such as {@code ServiceList} of
   * a linted kind). {@code null} for what is not known yet.
   */
  static boolean mayBeLinted(String apiVersion, String kind) {
    if (kind == null) {
      return true;
    }
    if (kind.equals("List")) {
      return true;
    }
    String itemKind = kind.endsWith("List") ? kind.substring(0, kind.length() - 4) : kind;
    if (apiVersion == null) {
      return isLinted("", itemKind) || isLintedInAnyGroup(itemKind);
    }
    String group = Manifest.groupOf(apiVersion);
    return isLinted(group, itemKind) || isLinted(group, kind);
  }

  private static boolean isLintedInAnyGroup(String kind) {
    for (LintedObjects.WorkloadKind candidate : LintedObjects.WorkloadKind.values()) {
      if (candidate.kind.equals(kind)) {
        return true;
      }
    }
    return false;
  }
}
