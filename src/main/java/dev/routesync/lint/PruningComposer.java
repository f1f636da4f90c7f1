package dev.routesync.lint;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.NodeEvent;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.Parser;

/**
 * A composer that builds only the {@link ReadFields} of each object: the value of any other key is
 * parsed (and counted by {@link EventLimits}) but not built, and stands as a null placeholder, so
 * that duplicate keys are still found. A document of a kind lint does not read keeps only its
 * {@code apiVersion} and {@code kind}. A skipped value that holds an anchor is built from the
 * anchor down, so that an alias elsewhere still finds it.
 */
final class PruningComposer extends Composer {

  // The fields of each collection being composed, innermost first.
  private final Deque<ReadFields> open = new ArrayDeque<>();
  // The fields of the value about to be composed, set by the mapping it belongs to.
  private ReadFields next;
  private Node lastKey;

  PruningComposer(LoadSettings settings, Parser parser) {
    super(settings, parser);
  }

  @Override
  public Node next() {
    open.clear();
    next = null;
    lastKey = null;
    return super.next();
  }

  @Override
  protected Node composeMappingNode(Optional<Anchor> anchor) {
    open.push(fieldsOfNewCollection());
    try {
      return super.composeMappingNode(anchor);
    } finally {
      open.pop();
    }
  }

  @Override
  protected SequenceNode composeSequenceNode(Optional<Anchor> anchor) {
    open.push(fieldsOfNewCollection());
    try {
      return super.composeSequenceNode(anchor);
    } finally {
      open.pop();
    }
  }

  private ReadFields fieldsOfNewCollection() {
    ReadFields fields = next;
    next = null;
    if (fields != null) {
      return fields;
    }
    ReadFields enclosing = open.peek();
    if (enclosing == null) {
      return new ObjectFields(null, null); // The document.
    }
    if (enclosing instanceof ObjectFields.Items items) {
      return items.newItem();
    }
    return enclosing; // An item of a sequence shares the sequence's fields.
  }

  @Override
  protected Node composeKeyNode(MappingNode node) {
    next = ReadFields.ALL;
    Node key = super.composeKeyNode(node);
    next = null;
    lastKey = key;
    return key;
  }

  @Override
  protected Node composeValueNode(MappingNode node) {
    Node key = lastKey;
    ReadFields fields = open.peek();
    ReadFields child = fields == null ? ReadFields.ALL : fields.child(stringOf(key));
    if (child == null && !Tag.MERGE.equals(key.getTag())) {
      Event first = parser.peekEvent();
      skipNode(node);
      return placeholder(first.getStartMark(), first.getEndMark());
    }
    next = child == null ? ReadFields.ALL : child;
    Node value = super.composeValueNode(node);
    next = null;
    if (fields instanceof ObjectFields object) {
      object.note(stringOf(key), stringOf(value));
    }
    return value;
  }

  @Override
  protected void composeMappingChildren(List<NodeTuple> children, MappingNode node) {
    super.composeMappingChildren(children, node);
    if (open.peek() instanceof ObjectFields object && object.readsNothing()) {
      // Drop what was built before the kind was known (kubectl's order puts nothing there).
      for (int i = 0; i < children.size(); i++) {
        NodeTuple tuple = children.get(i);
        String name = stringOf(tuple.getKeyNode());
        Node value = tuple.getValueNode();
        if (!"apiVersion".equals(name) && !"kind".equals(name) && !isPlaceholder(value)) {
          children.set(
              i,
              new NodeTuple(
                  tuple.getKeyNode(), placeholder(value.getStartMark(), value.getEndMark())));
        }
      }
    }
  }

  /** Consumes one node's events; an anchored node within is built, for the aliases to it. */
  private void skipNode(MappingNode parent) {
    int depth = 0;
    do {
      Event event = parser.peekEvent();
      if (event instanceof NodeEvent node
          && !(event instanceof AliasEvent)
          && node.getAnchor().isPresent()) {
        next = ReadFields.ALL;
        super.composeValueNode(parent);
        next = null;
        continue;
      }
      switch (parser.next().getEventId()) {
        case SequenceStart, MappingStart -> depth++;
        case SequenceEnd, MappingEnd -> depth--;
        default -> {}
      }
    } while (depth > 0);
  }

  private static final String PLACEHOLDER = "";

  private static ScalarNode placeholder(
      Optional<org.snakeyaml.engine.v2.exceptions.Mark> start,
      Optional<org.snakeyaml.engine.v2.exceptions.Mark> end) {
    return new ScalarNode(Tag.NULL, true, PLACEHOLDER, ScalarStyle.PLAIN, start, end);
  }

  private static boolean isPlaceholder(Node node) {
    return node instanceof ScalarNode scalar && scalar.getValue() == PLACEHOLDER;
  }

  private static String stringOf(Node node) {
    return node instanceof ScalarNode scalar && Tag.STR.equals(scalar.getTag())
        ? scalar.getValue()
        : null;
  }
}
