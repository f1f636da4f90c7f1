package dev.routesync.lint;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code -o json}: one document, every field always present (absent values are {@code null} or
 * {@code []}), field order fixed. The schema is docs/rollout-safety.md's; new fields may be added,
 * none removed or renamed.
 *
 * <pre>{@code
 * {"findings": [{"rule", "name", "severity", "file", "line", "namespace", "service",
 *                "port": {"name", "port", "targetPort", "protocol"} | null,
 *                "workload": {"kind", "namespace", "name", "file", "line"} | null,
 *                "message", "declared": [...], "closest": "..." | null}],
 *  "errors": n, "warnings": n}
 * }</pre>
 */
final class JsonReport {

  static final JsonMapper MAPPER = JsonMapper.builder().build();

  private JsonReport() {}

  static String render(List<Finding> findings) {
    ObjectNode root = MAPPER.createObjectNode();
    ArrayNode array = root.putArray("findings");
    long errors = 0;
    for (Finding finding : findings) {
      array.add(finding(finding));
      if (finding.severity() == Severity.ERROR) {
        errors++;
      }
    }
    root.put("errors", errors);
    root.put("warnings", findings.size() - errors);
    return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
  }

  /** {@code -o yaml}: the same document's fields as YAML. */
  static String renderYaml(List<Finding> findings) {
    return Serialization.asYaml(MAPPER.readValue(render(findings), Map.class));
  }

  private static ObjectNode finding(Finding finding) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("rule", finding.rule().id());
    node.put("name", finding.rule().ruleName());
    node.put("severity", finding.severity().label());
    node.put("file", finding.file());
    node.put("line", finding.line());
    node.put("namespace", finding.namespace());
    node.put("service", finding.service());
    if (finding.port().isPresent()) {
      Finding.PortRef port = finding.port().get();
      ObjectNode portNode = node.putObject("port");
      portNode.put("name", port.name());
      portNode.put("port", port.port());
      portNode.put("targetPort", port.targetPort());
      portNode.put("protocol", port.protocol());
    } else {
      node.putNull("port");
    }
    if (finding.workload().isPresent()) {
      Finding.WorkloadRef workload = finding.workload().get();
      ObjectNode workloadNode = node.putObject("workload");
      workloadNode.put("kind", workload.kind());
      workloadNode.put("namespace", workload.namespace());
      workloadNode.put("name", workload.name());
      workloadNode.put("file", workload.file());
      workloadNode.put("line", workload.line());
    } else {
      node.putNull("workload");
    }
    node.put("message", finding.message());
    ArrayNode declared = node.putArray("declared");
    finding.declared().forEach(declared::add);
    if (finding.closest().isPresent()) {
      node.put("closest", finding.closest().get());
    } else {
      node.putNull("closest");
    }
    return node;
  }
}
