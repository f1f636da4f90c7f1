package dev.routesync.lint;

import java.util.List;
import java.util.Map;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * One Kubernetes object read from a manifest, with where it was read.
 *
 * @param file the input's name ({@link Input#name()})
 * @param line the 1-based line where the object starts (its first key)
 * @param apiVersion {@code v1}, {@code apps/v1}, ...
 * @param kind {@code Service}, {@code Deployment}, ...
 * @param node the object's YAML node, for the lines of its fields
 * @param object the object as plain maps and lists, for the mapping to the model
 */
record Manifest(
    String file,
    int line,
    String apiVersion,
    String kind,
    MappingNode node,
    Map<String, Object> object) {

  /**
   * The API group: {@code ""} for the core group ({@code v1}), {@code apps} for {@code apps/v1}.
   */
  String group() {
    return groupOf(apiVersion);
  }

  /**
   * The API group of an apiVersion: {@code ""} for {@code v1}, {@code apps} for {@code apps/v1}.
   */
  static String groupOf(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  /** {@code metadata.name}, or {@code ""}. */
  String name() {
    return metadataString("name");
  }

  /** {@code metadata.namespace}, or {@code ""} when the manifest leaves it to the deployer. */
  String namespace() {
    return metadataString("namespace");
  }

  private String metadataString(String key) {
    return object.get("metadata") instanceof Map<?, ?> metadata
            && metadata.get(key) instanceof String value
        ? value
        : "";
  }

  /**
   * The line of a field, by its path of map keys ({@code String}) and list indexes ({@code
   * Integer}): the line of the last key, or of the list item. Where the path ends early (an omitted
   * field), the line of the deepest field that is there.
   */
  int lineOf(Object... path) {
    Node at = node;
    int line = this.line;
    for (Object step : path) {
      Node next = null;
      if (step instanceof String key && at instanceof MappingNode mapping) {
        for (NodeTuple tuple : mapping.getValue()) {
          if (tuple.getKeyNode() instanceof ScalarNode scalar && scalar.getValue().equals(key)) {
            line = lineOf(tuple.getKeyNode(), line);
            next = tuple.getValueNode();
            break;
          }
        }
      } else if (step instanceof Integer index && at instanceof SequenceNode sequence) {
        List<Node> items = sequence.getValue();
        if (index >= 0 && index < items.size()) {
          next = items.get(index);
          line = lineOf(next, line);
        }
      }
      if (next == null) {
        return line;
      }
      at = next;
    }
    return line;
  }

  private static int lineOf(Node node, int fallback) {
    int line = EventLimits.lineOf(node.getStartMark());
    return line > 0 ? line : fallback;
  }
}
