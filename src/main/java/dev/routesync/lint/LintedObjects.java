package dev.routesync.lint;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;

/**
 * The objects lint checks, mapped from the manifests to fabric8's model (the types the rules module
 * reads): the Services, the workloads' pod templates, and the Rollouts whose template lives
 * elsewhere. Every other kind is ignored.
 *
 * @param services the v1 Services
 * @param workloads every pod template found
 * @param opaque Argo Rollouts with {@code spec.workloadRef}: pods whose template is not here
 */
record LintedObjects(
    List<LintedService> services, List<Workload> workloads, List<OpaqueWorkload> opaque) {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /**
   * A Service and where it was read.
   *
   * @param service the Service, its namespace set ({@code --namespace} when the manifest has none)
   * @param lines where it was read: the lines findings point at, taken before its YAML is dropped
   */
  record LintedService(Service service, ServiceLines lines) {
    String namespace() {
      return service.getMetadata().getNamespace();
    }

    String name() {
      String name = service.getMetadata().getName();
      return name == null ? "" : name;
    }
  }

  /**
   * A pod template: the pods a workload would create.
   *
   * @param ref the workload, for messages
   * @param labels the template's labels
   * @param spec the template's pod spec
   */
  record Workload(Finding.WorkloadRef ref, Map<String, String> labels, PodSpec spec) {
    String namespace() {
      return ref.namespace();
    }
  }

  /**
   * Pods lint cannot see: an Argo Rollout with {@code spec.workloadRef} takes its template from
   * another object (a Deployment, which lint checks on its own when it is in the manifests).
   *
   * @param namespace its namespace
   * @param matchLabels {@code spec.selector.matchLabels}; empty when it has none
   */
  record OpaqueWorkload(String namespace, Map<String, String> matchLabels) {

    /**
     * Its pods might carry the labels {@code selector} wants: every label they both name has the
     * same value. With no matchLabels, any Service of the namespace might select them.
     */
    boolean mayBeSelectedBy(String serviceNamespace, Map<String, String> selector) {
      if (!namespace.equals(serviceNamespace)) {
        return false;
      }
      for (Map.Entry<String, String> label : matchLabels.entrySet()) {
        String wanted = selector.get(label.getKey());
        if (wanted != null && !wanted.equals(label.getValue())) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * The kinds with a pod template, by API group and kind (a Knative {@code Service} or some CRD's
   * {@code Deployment} is not one of them), and where each keeps the template.
   */
  enum WorkloadKind {
    POD("", "Pod"),
    REPLICATION_CONTROLLER("", "ReplicationController", "spec", "template"),
    DEPLOYMENT("apps", "Deployment", "spec", "template"),
    REPLICA_SET("apps", "ReplicaSet", "spec", "template"),
    STATEFUL_SET("apps", "StatefulSet", "spec", "template"),
    DAEMON_SET("apps", "DaemonSet", "spec", "template"),
    JOB("batch", "Job", "spec", "template"),
    CRON_JOB("batch", "CronJob", "spec", "jobTemplate", "spec", "template"),
    ROLLOUT("argoproj.io", "Rollout", "spec", "template");

    final String group;
    final String kind;
    final List<String> templatePath;

    WorkloadKind(String group, String kind, String... templatePath) {
      this.group = group;
      this.kind = kind;
      this.templatePath = List.of(templatePath);
    }

    static WorkloadKind of(Manifest manifest) {
      for (WorkloadKind candidate : values()) {
        if (candidate.group.equals(manifest.group()) && candidate.kind.equals(manifest.kind())) {
          return candidate;
        }
      }
      return null;
    }
  }

  static LintedObjects of(List<Manifest> manifests, String defaultNamespace)
      throws LintInputException {
    Collector collector = new Collector(defaultNamespace);
    for (Manifest manifest : manifests) {
      collector.add(manifest);
    }
    return collector.objects();
  }

  /**
   * Maps manifests one at a time, as they are read, and keeps only what the checks need: the mapped
   * objects and the lines findings point at, never a manifest's YAML. What it keeps is bounded (by
   * default {@link ReadLimits#MAX_LINTED_NODES} nodes and {@link ReadLimits#MAX_LINTED_CHARS}
   * characters): a Service is paired with workloads of any file, so these have to last to the end
   * of the run. Not thread-safe.
   */
  static final class Collector {
    private final String defaultNamespace;
    private final ObjectSize limit;
    private final List<LintedService> services = new ArrayList<>();
    private final List<Workload> workloads = new ArrayList<>();
    private final List<OpaqueWorkload> opaque = new ArrayList<>();
    private ObjectSize kept = new ObjectSize(0, 0);

    Collector(String defaultNamespace) {
      this(
          defaultNamespace,
          new ObjectSize(ReadLimits.MAX_LINTED_NODES, ReadLimits.MAX_LINTED_CHARS));
    }

    Collector(String defaultNamespace, ObjectSize limit) {
      this.defaultNamespace = defaultNamespace;
      this.limit = limit;
    }

    void add(Manifest manifest) throws LintInputException {
      String namespace = manifest.namespace().isEmpty() ? defaultNamespace : manifest.namespace();
      boolean service = manifest.group().isEmpty() && manifest.kind().equals("Service");
      WorkloadKind kind = service ? null : WorkloadKind.of(manifest);
      if (!service && kind == null) {
        return;
      }
      kept = kept.plus(ObjectSize.of(manifest.object()));
      if (kept.nodes() > limit.nodes()) {
        throw new LintInputException(
            manifest.file(),
            manifest.line(),
            "more than "
                + limit.nodes()
                + " YAML nodes in the Services and workloads of all inputs");
      }
      if (kept.chars() > limit.chars()) {
        throw new LintInputException(
            manifest.file(),
            manifest.line(),
            "more than "
                + limit.chars()
                + " characters of text in the Services and workloads of all inputs");
      }
      if (service) {
        services.add(service(manifest, namespace));
      } else {
        addWorkload(manifest, kind, namespace, workloads, opaque);
      }
    }

    LintedObjects objects() {
      return new LintedObjects(List.copyOf(services), List.copyOf(workloads), List.copyOf(opaque));
    }
  }

  private static LintedService service(Manifest manifest, String namespace)
      throws LintInputException {
    Service service = convert(manifest, manifest.object(), Service.class);
    if (service.getMetadata() == null) {
      service.setMetadata(new ObjectMeta());
    }
    service.getMetadata().setNamespace(namespace);
    NameLengths.checkService(manifest, service);
    return new LintedService(service, ServiceLines.of(manifest, service));
  }

  private static void addWorkload(
      Manifest manifest,
      WorkloadKind kind,
      String namespace,
      List<Workload> workloads,
      List<OpaqueWorkload> opaque)
      throws LintInputException {
    Object template = kind == WorkloadKind.POD ? podAsTemplate(manifest) : at(manifest, kind);
    if (template == null) {
      if (kind == WorkloadKind.ROLLOUT && at(manifest.object(), "spec", "workloadRef") != null) {
        opaque.add(new OpaqueWorkload(namespace, matchLabels(manifest)));
      }
      return; // No template: nothing to check (the API server would refuse most of these).
    }
    if (!(template instanceof Map<?, ?>)) {
      throw new LintInputException(
          manifest.file(),
          manifest.line(),
          "cannot read "
              + manifest.kind()
              + " "
              + manifest.name()
              + ": "
              + String.join(".", kind.templatePath)
              + " must be a mapping");
    }
    PodTemplateSpec pod = convert(manifest, template, PodTemplateSpec.class);
    NameLengths.checkWorkload(manifest, pod.getSpec());
    Map<String, String> labels =
        pod.getMetadata() == null || pod.getMetadata().getLabels() == null
            ? Map.of()
            : pod.getMetadata().getLabels();
    Finding.WorkloadRef ref =
        new Finding.WorkloadRef(
            manifest.kind(), namespace, manifest.name(), manifest.file(), manifest.line());
    workloads.add(new Workload(ref, labels, pod.getSpec()));
  }

  private static Object podAsTemplate(Manifest manifest) {
    Map<String, Object> template = new LinkedHashMap<>();
    template.put("metadata", manifest.object().get("metadata"));
    template.put("spec", manifest.object().get("spec"));
    return template;
  }

  private static Object at(Manifest manifest, WorkloadKind kind) {
    return at(manifest.object(), kind.templatePath.toArray(String[]::new));
  }

  private static Object at(Map<String, Object> object, String... path) {
    Object at = object;
    for (String key : path) {
      if (!(at instanceof Map<?, ?> map)) {
        return null;
      }
      at = map.get(key);
    }
    return at;
  }

  private static Map<String, String> matchLabels(Manifest manifest) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (at(manifest.object(), "spec", "selector", "matchLabels") instanceof Map<?, ?> map) {
      map.forEach((key, value) -> labels.put(String.valueOf(key), String.valueOf(value)));
    }
    return labels;
  }

  private static <T> T convert(Manifest manifest, Object value, Class<T> type)
      throws LintInputException {
    try {
      return SERIALIZATION.convertValue(value, type);
    } catch (JacksonException | IllegalArgumentException e) {
      throw new LintInputException(
          manifest.file(),
          manifest.line(),
          "cannot read " + manifest.kind() + " " + manifest.name() + ": " + firstLine(e));
    }
  }

  // Jackson's messages go on with a reference chain over several lines; the first says it.
  private static String firstLine(Exception e) {
    Throwable cause = e;
    while (!(cause instanceof JacksonException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message =
        cause instanceof JacksonException jackson
            ? jackson.getOriginalMessage()
            : String.valueOf(e.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
