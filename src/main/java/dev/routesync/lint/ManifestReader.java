package dev.routesync.lint;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.constructor.StandardConstructor;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;

/**
 * Reads the Kubernetes objects of one input: a stream of YAML documents ({@code ---} between them,
 * comments such as {@code helm template}'s {@code # Source:}, empty documents), JSON (YAML's
 * subset), and {@code kind: List}. snakeyaml-engine composes each document into nodes that keep
 * their line, and constructs plain maps from them for the mapping to the model.
 *
 * <p>Bounded, so that a hostile or broken file costs a bounded amount of memory and time: the
 * input's size is checked before it is read ({@link ReadLimits}), the parser's events are counted
 * before anything is built ({@link EventLimits}), only the fields lint reads are built ({@link
 * PruningComposer}: of a kind lint does not read, nothing but apiVersion and kind), and each object
 * is handed on as soon as it is read, so nothing of a document outlives the next one.
 */
final class ManifestReader {

  static final int MAX_DOCUMENT_CODE_POINTS = ReadLimits.MAX_DOCUMENT_CODE_POINTS;

  /** Where the objects read go, one at a time. */
  @FunctionalInterface
  interface Sink {
    void accept(Manifest manifest) throws LintInputException;
  }

  // The reader's window grows by its buffer at a time, and each growth copies the whole token being
  // scanned: with the default buffer (1 KiB), a 10 MiB scalar without a space takes some 40 s to
  // read; with 1 MiB, half a second. A small file gets a buffer of its own size instead (a token is
  // no longer than the file): a directory of 100,000 of them would otherwise allocate 200 GB.
  private static final int MAX_BUFFER = 1024 * 1024;
  private static final int MIN_BUFFER = 4 * 1024;

  private static final LoadSettings SETTINGS = settings(MAX_BUFFER);

  private static LoadSettings settings(int bufferSize) {
    return LoadSettings.builder()
        .setLabel("manifest")
        .setCodePointLimit(MAX_DOCUMENT_CODE_POINTS)
        .setBufferSize(bufferSize)
        // EventLimits counts first, with a message of its own; this is the backstop.
        .setMaxAliasesForCollections(EventLimits.MAX_COLLECTION_ALIASES)
        .setAllowRecursiveKeys(false)
        // kubectl rejects a duplicate key (strict decoding); a silent last-wins would lint
        // another object than the one the API server refuses.
        .setAllowDuplicateKeys(false)
        .build();
  }

  private static LoadSettings settingsFor(Input input) {
    long size = input.sizeHint();
    if (size < 0 || size >= MAX_BUFFER) {
      return SETTINGS;
    }
    return settings((int) Math.max(MIN_BUFFER, size + 1));
  }

  private ManifestReader() {}

  /** The objects of the kinds lint reads, in the input's order. */
  static List<Manifest> read(Input input) throws LintInputException {
    List<Manifest> manifests = new ArrayList<>();
    read(input, manifests::add);
    return manifests;
  }

  /** Hands each object of a kind lint reads to {@code sink}, as soon as it is read. */
  static void read(Input input, Sink sink) throws LintInputException {
    String file = input.name();
    try (InputStream bytes =
        new BoundedInputStream(input.opener().open(), ReadLimits.MAX_INPUT_BYTES)) {
      Reader text = utf8(bytes);
      if (file.toLowerCase(Locale.ROOT).endsWith(".json")) {
        text = new TabsAsSpaces(text);
      }
      LoadSettings settings = settingsFor(input);
      StreamReader stream = new StreamReader(settings, text);
      EventLimits parser = new EventLimits(new ParserImpl(settings, stream));
      PruningComposer composer = new PruningComposer(settings, parser);
      try {
        while (composer.hasNext()) {
          addDocument(file, composer.next(), sink);
        }
      } catch (EventLimits.LimitException e) {
        throw new LintInputException(
            file, e.line, (e.size ? "" : "not valid YAML: ") + e.getMessage());
      } catch (MarkedYamlEngineException e) {
        throw new LintInputException(file, lineOf(e), "not valid YAML: " + problemOf(e));
      } catch (IllegalArgumentException e) {
        // snakeyaml-engine's Tag refuses some decoded tags (a "!%1") with a bare
        // IllegalArgumentException from the composer, not a YAML exception.
        throw new LintInputException(
            file, parser.documentLine(), "not valid YAML: " + e.getMessage());
      } catch (YamlEngineException e) {
        IOException io = ioCause(e);
        if (io != null) {
          throw io;
        }
        if (stream.getDocumentIndex() >= MAX_DOCUMENT_CODE_POINTS) {
          throw new LintInputException(
              file, parser.documentLine(), "a document larger than 10 MiB");
        }
        throw new LintInputException(
            file, parser.documentLine(), "not valid YAML: " + e.getMessage());
      }
    } catch (CharacterCodingException e) {
      throw new LintInputException(file, 0, "not UTF-8");
    } catch (BoundedInputStream.TooLargeException e) {
      throw new LintInputException(file, 0, "larger than 64 MiB");
    } catch (AccessDeniedException e) {
      throw new LintInputException(file, 0, "permission denied");
    } catch (IOException e) {
      throw new LintInputException(file, 0, "cannot read: " + e.getMessage());
    }
  }

  private static Reader utf8(InputStream bytes) {
    return new InputStreamReader(
        bytes,
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT));
  }

  private static void addDocument(String file, Node node, Sink out) throws LintInputException {
    if (node instanceof ScalarNode scalar && Tag.NULL.equals(scalar.getTag())) {
      return; // An empty document: "---" twice, or only comments (helm prints these).
    }
    Object value;
    try {
      value = new StandardConstructor(SETTINGS).constructSingleDocument(Optional.of(node));
    } catch (MarkedYamlEngineException e) {
      throw new LintInputException(file, lineOf(e), "not valid YAML: " + problemOf(e));
    }
    // Of a document the composer skipped, only apiVersion and kind are left to check here.
    addObject(file, node, value, "", "", out);
  }

  /**
   * One object, or the items of a list. A typed list ({@code ServiceList}, as {@code kubectl get -o
   * yaml} of one kind may print) lends its items the kind and apiVersion they leave out.
   */
  private static void addObject(
      String file, Node node, Object value, String impliedApiVersion, String impliedKind, Sink out)
      throws LintInputException {
    int line = EventLimits.lineOf(node.getStartMark());
    if (!(node instanceof MappingNode mapping) || !(value instanceof Map<?, ?> raw)) {
      throw new LintInputException(
          file,
          line,
          "a document must be a mapping with apiVersion and kind, not a "
              + (node instanceof SequenceNode ? "sequence" : "scalar"));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> object = (Map<String, Object>) raw;
    String apiVersion = stringOr(object.get("apiVersion"), impliedApiVersion);
    String kind = stringOr(object.get("kind"), impliedKind);
    if (apiVersion.isEmpty()) {
      throw new LintInputException(file, line, "no apiVersion");
    }
    if (kind.isEmpty()) {
      throw new LintInputException(file, line, "no kind");
    }
    boolean list = kind.equals("List") || (kind.endsWith("List") && object.containsKey("items"));
    if (!list) {
      if (LintedKinds.isLinted(Manifest.groupOf(apiVersion), kind)) {
        out.accept(new Manifest(file, line, apiVersion, kind, mapping, object));
      }
      return;
    }
    Node itemsNode = valueNode(mapping, "items");
    Object items = object.get("items");
    if (items == null || itemsNode == null) {
      return; // An empty list.
    }
    if (!(itemsNode instanceof SequenceNode sequence) || !(items instanceof List<?> values)) {
      int itemsLine = itemsNode == null ? line : EventLimits.lineOf(itemsNode.getStartMark());
      throw new LintInputException(file, itemsLine, "items must be a sequence");
    }
    String itemKind = kind.equals("List") ? "" : kind.substring(0, kind.length() - 4);
    String itemApiVersion = kind.equals("List") ? "" : apiVersion;
    for (int i = 0; i < values.size(); i++) {
      addObject(file, sequence.getValue().get(i), values.get(i), itemApiVersion, itemKind, out);
    }
  }

  private static Node valueNode(MappingNode mapping, String key) {
    for (NodeTuple tuple : mapping.getValue()) {
      if (tuple.getKeyNode() instanceof ScalarNode scalar && scalar.getValue().equals(key)) {
        return tuple.getValueNode();
      }
    }
    return null;
  }

  private static String stringOr(Object value, String fallback) {
    return value instanceof String text && !text.isEmpty() ? text : fallback;
  }

  private static int lineOf(MarkedYamlEngineException e) {
    Optional<Mark> mark = e.getProblemMark().isPresent() ? e.getProblemMark() : e.getContextMark();
    return EventLimits.lineOf(mark);
  }

  // snakeyaml's getMessage() adds a snippet of the input over several lines; one line is wanted.
  private static String problemOf(MarkedYamlEngineException e) {
    String problem = e.getProblem() == null ? "" : e.getProblem().strip();
    String context = e.getContext() == null ? "" : e.getContext().strip();
    return context.isEmpty() ? problem : context + ": " + problem;
  }

  private static IOException ioCause(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof IOException io) {
        return io;
      }
    }
    return null;
  }
}
