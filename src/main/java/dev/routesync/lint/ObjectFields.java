package dev.routesync.lint;

/**
 * The fields lint reads of one Kubernetes object (a document, or an item of a list), decided by its
 * {@code apiVersion} and {@code kind} as they are read: every field while they are not known, none
 * for a kind lint does not read (only those two are kept, for their checks), the {@link
 * ReadFields#ofObject} fields for one it does, and each item's own for a list. Not thread-safe: one
 * per object being composed.
 */
final class ObjectFields implements ReadFields {

  private final String impliedApiVersion;
  private final String impliedKind;
  private String apiVersion;
  private String kind;

  /**
   * @param impliedApiVersion what a typed list lends its items ({@code null} when none)
   * @param impliedKind likewise
   */
  ObjectFields(String impliedApiVersion, String impliedKind) {
    this.impliedApiVersion = impliedApiVersion;
    this.impliedKind = impliedKind;
  }

  /** A top-level field was read: notes apiVersion and kind when they are strings. */
  void note(String key, String value) {
    if (value == null || value.isEmpty()) {
      return;
    }
    if ("apiVersion".equals(key)) {
      apiVersion = value;
    } else if ("kind".equals(key)) {
      kind = value;
    }
  }

  /** The kind is known and lint reads nothing of it. */
  boolean readsNothing() {
    String k = kind();
    return k != null && !LintedKinds.mayBeLinted(apiVersion(), k);
  }

  @Override
  public ReadFields child(String key) {
    if ("apiVersion".equals(key) || "kind".equals(key)) {
      return ALL;
    }
    String k = kind();
    String v = apiVersion();
    if (k == null || v == null) {
      return readsNothing() ? null : ALL;
    }
    if (!LintedKinds.mayBeLinted(v, k)) {
      return null;
    }
    boolean list = k.equals("List") || k.endsWith("List");
    if (list) {
      // A typed list lends its items its apiVersion and the kind it lists.
      return "items".equals(key) ? new Items(k) : null;
    }
    ReadFields fields = ReadFields.ofObject(Manifest.groupOf(v), k);
    return fields == null ? null : fields.child(key);
  }

  private String kind() {
    return kind != null ? kind : impliedKind;
  }

  private String apiVersion() {
    return apiVersion != null ? apiVersion : impliedApiVersion;
  }

  /** A list's items: each one an object of its own. */
  final class Items implements ReadFields {
    private final String listKind;

    Items(String listKind) {
      this.listKind = listKind;
    }

    ObjectFields newItem() {
      if (listKind.equals("List")) {
        return new ObjectFields(null, null);
      }
      return new ObjectFields(apiVersion(), listKind.substring(0, listKind.length() - 4));
    }

    @Override
    public ReadFields child(String key) {
      return ALL; // Not reached: an item is a mapping, and gets newItem().
    }
  }
}
