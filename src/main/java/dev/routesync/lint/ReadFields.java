package dev.routesync.lint;

import java.util.Map;

/**
 * The fields lint reads, as a tree of keys: what the composer builds of a document. Everything else
 * is parsed (and counted) but never built, so a ConfigMap's data or a Deployment's environment
 * costs the parse, not a node per value. An object's fields depend on its kind, known once its
 * {@code apiVersion} and {@code kind} are read (kubectl, helm and kustomize print them first);
 * until then every field is built.
 */
interface ReadFields {

  /** The fields under {@code key}, or {@code null} when lint does not read it. */
  ReadFields child(String key);

  /** Every field under here. */
  ReadFields ALL = new All();

  /** Only the named keys, each with its own fields; a sequence's items share them. */
  record Keys(Map<String, ReadFields> keys) implements ReadFields {
    @Override
    public ReadFields child(String key) {
      return key == null ? null : keys.get(key); // a key that is not a string: read nothing
    }
  }

  /** Every field: keys, sequences' items, and an object whose kind is not known yet. */
  final class All implements ReadFields {
    @Override
    public ReadFields child(String key) {
      return this;
    }
  }

  ReadFields CONTAINERS = new Keys(Map.of("name", ALL, "ports", ALL, "restartPolicy", ALL));

  ReadFields POD_SPEC = new Keys(Map.of("containers", CONTAINERS, "initContainers", CONTAINERS));

  ReadFields NAMES = new Keys(Map.of("name", ALL, "namespace", ALL));

  ReadFields TEMPLATE =
      new Keys(Map.of("metadata", new Keys(Map.of("labels", ALL)), "spec", POD_SPEC));

  /** The fields lint reads of an object of this group and kind, or {@code null} for none. */
  static ReadFields ofObject(String group, String kind) {
    if (group.isEmpty() && kind.equals("Service")) {
      return object(
          new Keys(
              Map.of(
                  "selector", ALL,
                  "ports", ALL,
                  "type", ALL,
                  "publishNotReadyAddresses", ALL)));
    }
    if (group.isEmpty() && kind.equals("Pod")) {
      return new Keys(
          Map.of(
              "apiVersion", ALL,
              "kind", ALL,
              "metadata", new Keys(Map.of("name", ALL, "namespace", ALL, "labels", ALL)),
              "spec", POD_SPEC));
    }
    for (LintedObjects.WorkloadKind workload : LintedObjects.WorkloadKind.values()) {
      if (workload.group.equals(group) && workload.kind.equals(kind)) {
        // templatePath is spec.template, or spec.jobTemplate.spec.template for a CronJob.
        ReadFields at = TEMPLATE;
        for (int i = workload.templatePath.size() - 1; i >= 1; i--) {
          at = new Keys(Map.of(workload.templatePath.get(i), at));
        }
        if (workload == LintedObjects.WorkloadKind.ROLLOUT) {
          at =
              new Keys(
                  Map.of(
                      "template", TEMPLATE,
                      "workloadRef", ALL,
                      "selector", new Keys(Map.of("matchLabels", ALL))));
        }
        return object(at);
      }
    }
    return null;
  }

  private static ReadFields object(ReadFields spec) {
    return new Keys(Map.of("apiVersion", ALL, "kind", ALL, "metadata", NAMES, "spec", spec));
  }
}
