package dev.routesync.lint;

import java.util.List;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.Parser;

/**
 * A composer that builds a document only while it may be one lint reads. Once the top level has
 * said {@code apiVersion} and {@code kind} (kubectl, helm and kustomize print them first) and they
 * name a kind lint does not read, the values of the document's other top-level keys are dropped and
 * the rest is only parsed (and counted by {@link EventLimits}), never built: a 10 MiB ConfigMap
 * costs the parse, not ten million nodes. The top-level keys are still composed, so a duplicate
 * {@code kind} is still an error.
 */
final class KindSkippingComposer extends Composer {

  private int depth;
  private Node rootKey;
  private String apiVersion;
  private String kind;
  private boolean skipping;

  KindSkippingComposer(LoadSettings settings, Parser parser) {
    super(settings, parser);
  }

  @Override
  public Node next() {
    depth = 0;
    rootKey = null;
    apiVersion = null;
    kind = null;
    skipping = false;
    return super.next();
  }

  @Override
  protected Node composeMappingNode(Optional<Anchor> anchor) {
    depth++;
    try {
      return super.composeMappingNode(anchor);
    } finally {
      depth--;
    }
  }

  @Override
  protected SequenceNode composeSequenceNode(Optional<Anchor> anchor) {
    depth++;
    try {
      return super.composeSequenceNode(anchor);
    } finally {
      depth--;
    }
  }

  @Override
  protected Node composeKeyNode(MappingNode node) {
    Node key = super.composeKeyNode(node);
    if (depth == 1) {
      rootKey = key;
    }
    return key;
  }

  @Override
  protected Node composeValueNode(MappingNode node) {
    // A merge key's value must be a mapping for the composer to merge it: always built.
    if (depth == 1 && skipping && !Tag.MERGE.equals(rootKey.getTag())) {
      Event first = parser.peekEvent();
      skipNode();
      return placeholder(first);
    }
    return super.composeValueNode(node);
  }

  @Override
  protected void composeMappingChildren(List<NodeTuple> children, MappingNode node) {
    super.composeMappingChildren(children, node);
    if (depth != 1 || skipping) {
      return;
    }
    NodeTuple last = children.get(children.size() - 1);
    String key = stringOf(last.getKeyNode());
    String value = stringOf(last.getValueNode());
    if ("apiVersion".equals(key) && value != null) {
      apiVersion = value;
    } else if ("kind".equals(key) && value != null) {
      kind = value;
    }
    if (!LintedKinds.mayBeLinted(apiVersion, kind)) {
      skipping = true;
      // Drop what was built before the kind was known (kubectl's order puts nothing there).
      for (int i = 0; i < children.size(); i++) {
        NodeTuple tuple = children.get(i);
        String name = stringOf(tuple.getKeyNode());
        if (!"apiVersion".equals(name) && !"kind".equals(name)) {
          Node valueNode = tuple.getValueNode();
          children.set(i, new NodeTuple(tuple.getKeyNode(), placeholder(valueNode)));
        }
      }
    }
  }

  private void skipNode() {
    int open = 0;
    do {
      switch (parser.next().getEventId()) {
        case SequenceStart, MappingStart -> open++;
        case SequenceEnd, MappingEnd -> open--;
        default -> {}
      }
    } while (open > 0);
  }

  private static ScalarNode placeholder(Event at) {
    return new ScalarNode(
        Tag.NULL, true, "", ScalarStyle.PLAIN, at.getStartMark(), at.getEndMark());
  }

  private static ScalarNode placeholder(Node at) {
    return new ScalarNode(
        Tag.NULL, true, "", ScalarStyle.PLAIN, at.getStartMark(), at.getEndMark());
  }

  private static String stringOf(Node node) {
    return node instanceof ScalarNode scalar && Tag.STR.equals(scalar.getTag())
        ? scalar.getValue()
        : null;
  }
}
