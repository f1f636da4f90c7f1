package dev.routesync.lint;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.parser.Parser;

/**
 * Bounds what one YAML document may cost before it is composed, and remembers where it is, for the
 * messages of errors that carry no position of their own.
 *
 * <ul>
 *   <li><b>Nesting</b>: {@value #MAX_DEPTH} levels. Composing and mapping recurse, so a document of
 *       a million {@code [} would end in a StackOverflowError. Kubernetes objects nest about 10
 *       levels; a CRD's schema some 40.
 *   <li><b>Aliases of collections</b>: {@value #MAX_COLLECTION_ALIASES} per document. Each one can
 *       multiply what the mapping to the model builds (a "billion laughs"); Kubernetes manifests
 *       hardly use aliases, and {@code helm template} and {@code kustomize build} print none.
 *   <li><b>No recursion</b>: an alias inside the collection it names would make the mapping to the
 *       model loop for ever.
 *   <li><b>Nodes</b>: {@value ReadLimits#MAX_DOCUMENT_NODES} per document and {@value
 *       ReadLimits#MAX_INPUT_NODES} per input (scalars, collections and aliases alike), counted
 *       here, before the composer builds anything: the time and memory of all that follows grow
 *       with them, and a 10 MiB document of {@code [1,1,1,...]} holds five million.
 * </ul>
 */
final class EventLimits implements Parser {

  static final int MAX_DEPTH = 100;
  static final int MAX_COLLECTION_ALIASES = 10;

  /** A limit was passed: an error at a line, not a YAML library's message. */
  static final class LimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int line;
    // A size limit, not a YAML construct lint refuses: its message says so without "not valid".
    final boolean size;

    LimitException(int line, String problem) {
      this(line, problem, /* size= */ false);
    }

    LimitException(int line, String problem, boolean size) {
      super(problem);
      this.line = line;
      this.size = size;
    }
  }

  private final Parser parser;
  private final Set<Anchor> collectionAnchors = new HashSet<>();
  // The anchors of the collections still open, outermost first (null for one without an anchor).
  private final List<Anchor> open = new ArrayList<>();
  private int depth;
  private int collectionAliases;
  private int documentNodes;
  private int inputNodes;
  private int documentLine = 1;
  private boolean rootSeen;

  EventLimits(Parser parser) {
    this.parser = parser;
  }

  /** The 1-based line where the current document's content starts (its {@code ---} before that). */
  int documentLine() {
    return documentLine;
  }

  @Override
  public boolean checkEvent(Event.ID id) {
    return parser.checkEvent(id);
  }

  @Override
  public Event peekEvent() {
    return parser.peekEvent();
  }

  @Override
  public boolean hasNext() {
    return parser.hasNext();
  }

  @Override
  public Event next() {
    Event event = parser.next();
    int line = lineOf(event.getStartMark());
    switch (event.getEventId()) {
      case SequenceStart, MappingStart, Scalar, Alias -> countNode(line);
      default -> {}
    }
    switch (event.getEventId()) {
      case DocumentStart -> {
        depth = 0;
        collectionAliases = 0;
        documentNodes = 0;
        collectionAnchors.clear();
        open.clear();
        rootSeen = false;
        documentLine = line;
      }
      case SequenceStart, MappingStart -> {
        noteRoot(line);
        if (++depth > MAX_DEPTH) {
          throw new LimitException(line, "nested deeper than " + MAX_DEPTH + " levels");
        }
        Anchor anchor = ((CollectionStartEvent) event).getAnchor().orElse(null);
        if (anchor != null) {
          collectionAnchors.add(anchor);
        }
        open.add(anchor);
      }
      case SequenceEnd, MappingEnd -> {
        depth--;
        if (!open.isEmpty()) {
          open.remove(open.size() - 1);
        }
      }
      case Alias -> {
        noteRoot(line);
        Anchor alias = ((AliasEvent) event).getAlias();
        if (open.contains(alias)) {
          // A collection that contains itself: mapping it to the model would never end.
          throw new LimitException(line, "an alias inside its own anchor (*" + alias + ")");
        }
        if (collectionAnchors.contains(alias) && ++collectionAliases > MAX_COLLECTION_ALIASES) {
          throw new LimitException(
              line,
              "more than " + MAX_COLLECTION_ALIASES + " aliases of collections in one document");
        }
      }
      case Scalar -> noteRoot(line);
      default -> {}
    }
    return event;
  }

  private void countNode(int line) {
    if (++documentNodes > ReadLimits.MAX_DOCUMENT_NODES) {
      throw new LimitException(
          documentLine(),
          "a document of more than " + ReadLimits.MAX_DOCUMENT_NODES + " YAML nodes",
          /* size= */ true);
    }
    if (++inputNodes > ReadLimits.MAX_INPUT_NODES) {
      throw new LimitException(
          line, "more than " + ReadLimits.MAX_INPUT_NODES + " YAML nodes in one input", true);
    }
  }

  private void noteRoot(int line) {
    if (!rootSeen) {
      rootSeen = true;
      documentLine = line;
    }
  }

  static int lineOf(Optional<Mark> mark) {
    return mark.map(m -> m.getLine() + 1).orElse(0);
  }
}
