package dev.routesync.lint;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code -o sarif}: a SARIF 2.1.0 log with one run, for code-scanning UIs (GitHub's {@code
 * upload-sarif}, GitLab, Azure DevOps). Every rule is listed whether it fired or not, so a UI can
 * show what was checked; results point at the Service's line, with the workload as a related
 * location.
 *
 * <p>{@code artifactLocation.uri} must be a URI reference: files are given as the command line
 * named them, relative to the working directory (the repository root in CI), each path segment
 * percent-encoded; an absolute path becomes a {@code file:} URI; standard input is {@code
 * %3Cstdin%3E}.
 */
final class SarifReport {

  static final String SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

  private SarifReport() {}

  static String render(List<Finding> findings, String version) {
    ObjectNode log = JsonReport.MAPPER.createObjectNode();
    log.put("$schema", SCHEMA);
    log.put("version", "2.1.0");
    ObjectNode run = log.putArray("runs").addObject();
    ObjectNode driver = run.putObject("tool").putObject("driver");
    driver.put("name", "routesync");
    driver.put("version", version);
    driver.put("informationUri", Rule.PROJECT_URI);
    ArrayNode rules = driver.putArray("rules");
    for (Rule rule : Rule.values()) {
      ObjectNode node = rules.addObject();
      node.put("id", rule.id());
      node.put("name", rule.ruleName());
      node.putObject("shortDescription").put("text", rule.shortDescription());
      node.putObject("fullDescription").put("text", rule.fullDescription());
      node.putObject("defaultConfiguration").put("level", rule.severity().label());
      node.put("helpUri", rule.helpUri());
    }
    ArrayNode results = run.putArray("results");
    for (Finding finding : findings) {
      ObjectNode result = results.addObject();
      result.put("ruleId", finding.rule().id());
      result.put("ruleIndex", finding.rule().ordinal());
      result.put("level", finding.severity().label());
      result.putObject("message").put("text", finding.message());
      location(result.putArray("locations").addObject(), finding.file(), finding.line());
      finding
          .workload()
          .ifPresent(
              workload -> {
                ObjectNode related = result.putArray("relatedLocations").addObject();
                related.put("id", 0);
                location(related, workload.file(), workload.line());
                related.putObject("message").put("text", workload.describe());
              });
    }
    return JsonReport.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(log) + "\n";
  }

  private static void location(ObjectNode location, String file, int line) {
    ObjectNode physical = location.putObject("physicalLocation");
    physical.putObject("artifactLocation").put("uri", uri(file));
    physical.putObject("region").put("startLine", Math.max(line, 1));
  }

  /** A URI reference for a file as the command line named it. */
  static String uri(String file) {
    if (file.startsWith("/")) {
      return java.nio.file.Path.of(file).toUri().toString();
    }
    StringBuilder uri = new StringBuilder();
    for (String segment : file.replace('\\', '/').split("/", -1)) {
      if (uri.length() > 0) {
        uri.append('/');
      }
      uri.append(encodeSegment(segment));
    }
    return uri.toString();
  }

  private static String encodeSegment(String segment) {
    try {
      // The multi-argument constructor quotes what a path may not hold ("<", " ", "%" ...).
      String encoded = new URI(null, null, segment, null).getRawPath();
      // A relative reference's first segment may not contain ':' (it would read as a scheme).
      return encoded.replace(":", "%3A").replace("<", "%3C").replace(">", "%3E");
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot quote " + segment, e);
    }
  }
}
