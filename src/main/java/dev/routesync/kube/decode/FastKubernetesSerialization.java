package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.type.TypeReference;

/**
 * fabric8's serialization, with the watched kinds (EndpointSlices, legacy Endpoints, and the node's
 * Pods) read straight from the JSON tokens into fabric8's model, in one pass.
 *
 * <p>fabric8 reads each watch event and list into a JSON tree first (to find the object's kind),
 * then binds the tree to the model, looking up and contextualising a deserializer for every field
 * of every event: 31% of the agent's CPU per watch event, more than its own work. Here a watch
 * event whose object starts with the {@code apiVersion} or {@code kind} of a watched kind, and a
 * list of that kind, are read by hand-written readers of the kind's schema ({@link SliceReader},
 * {@link EndpointsReader}, {@link PodReader}), field by field, skipping {@code managedFields} and
 * unknown fields. The endpoint kinds' readers keep every field of the schema; the Pod reader only
 * what the agent reads of a Pod.
 *
 * <p>Anything else goes to fabric8, whole and unchanged: every other kind (Services, Nodes), ERROR
 * events (a Status), and any document in a shape the readers do not take exactly as data binding
 * would (a number where a string belongs, a float port, trailing content). So the fast path never
 * decides what an odd document means; fabric8 does, as before.
 *
 * <p>Threading: stateless but for counters; called on fabric8's threads.
 */
public final class FastKubernetesSerialization extends KubernetesSerialization {

  private static final List<DecodedKind<?, ?>> KINDS =
      List.of(DecodedKind.ENDPOINT_SLICES, DecodedKind.ENDPOINTS, DecodedKind.PODS);
  private static final Map<String, DecodedKind<?, ?>> BY_KIND =
      KINDS.stream().collect(Collectors.toUnmodifiableMap(DecodedKind::kind, Function.identity()));
  private static final Map<Type, DecodedKind<?, ?>> BY_LIST_TYPE =
      KINDS.stream()
          .collect(Collectors.toUnmodifiableMap(DecodedKind::listType, Function.identity()));

  // The stream is rewound for fabric8 when the fast path hands a list on: closing it is not ours.
  // One factory per instance, as fabric8 has one mapper per instance: a factory's table of names
  // seen before changes what it makes of some malformed names (see FastDecodeFuzzTest).
  private final JsonFactory factory =
      JsonFactory.builder().disable(StreamReadFeature.AUTO_CLOSE_SOURCE).build();
  private final LongAdder decoded = new LongAdder();
  private final LongAdder handedOn = new LongAdder();

  @Override
  @SuppressWarnings("unchecked")
  public <T> T unmarshal(String json, Class<T> type) {
    if (type == WatchEvent.class) {
      WatchEvent event = watchEvent(json);
      if (event != null) {
        decoded.increment();
        return (T) event;
      }
      handedOn.increment();
    }
    return super.unmarshal(json, type);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> T unmarshal(InputStream in, TypeReference<T> type) {
    DecodedKind<?, ?> kind = BY_LIST_TYPE.get(type.getType());
    if (kind == null) {
      return super.unmarshal(in, type);
    }
    // fabric8 hands over the buffered body as a ByteArrayInputStream: read it in place and rewind
    // it for fabric8 when it is not for the fast path, rather than copy a page of 500 objects.
    if (!in.markSupported()) {
      in = new ByteArrayInputStream(readAll(in));
    }
    in.mark(Integer.MAX_VALUE);
    Object list = list(kind, in);
    if (list != null) {
      decoded.increment();
      return (T) list;
    }
    handedOn.increment();
    try {
      in.reset();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return super.unmarshal(in, type);
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Watch events and lists read by the fast path so far (a test's seam). */
  public long decoded() {
    return decoded.sum();
  }

  /** Watch events and lists of a watched kind's type handed to fabric8 (a test's seam). */
  public long handedOn() {
    return handedOn.sum();
  }

  private Object list(DecodedKind<?, ?> kind, InputStream body) {
    try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), body)) {
      parser.nextToken();
      Object list = kind.readList(parser);
      return parser.nextToken() == null ? list : null;
    } catch (NotDecoded | JacksonException e) {
      return null;
    }
  }

  /** The event, or null when it is not for the fast path. */
  private WatchEvent watchEvent(String json) {
    try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), json)) {
      parser.nextToken();
      String[] type = {null};
      Object[] object = {null};
      Tokens.object(
          parser,
          (name, value) -> {
            switch (name) {
              case "type" -> type[0] = Tokens.string(value);
              case "object" -> object[0] = watchedObject(value);
              default -> {
                return false;
              }
            }
            return true;
          });
      if (parser.nextToken() != null || object[0] == null) {
        return null;
      }
      return new WatchEvent(object[0], type[0]);
    } catch (NotDecoded | JacksonException e) {
      return null;
    }
  }

  /**
   * An event's object of a watched kind, told by its first fields ({@code apiVersion} and {@code
   * kind} come first from the API server and from fabric8's model); anything else is not decoded.
   */
  private static Object watchedObject(JsonParser parser) {
    Tokens.expect(parser, JsonToken.START_OBJECT);
    String apiVersion = null;
    DecodedKind<?, ?> kind = null;
    while (kind == null) {
      String name = parser.nextName();
      if (name == null) {
        throw NotDecoded.INSTANCE;
      }
      parser.nextToken();
      switch (name) {
        case "apiVersion" -> apiVersion = Tokens.string(parser);
        case "kind" -> {
          kind = BY_KIND.get(Tokens.string(parser));
          if (kind == null) {
            throw NotDecoded.INSTANCE;
          }
        }
        default -> throw NotDecoded.INSTANCE;
      }
    }
    return rest(kind, parser, apiVersion);
  }

  private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> T rest(
      DecodedKind<T, ?> kind, JsonParser parser, String apiVersionSeen) {
    T object = kind.newObject().get();
    String name;
    String apiVersion = apiVersionSeen;
    while ((name = parser.nextName()) != null) {
      parser.nextToken();
      if (name.equals("apiVersion")) {
        apiVersion = Tokens.string(parser);
      } else if (name.equals("kind")) {
        // A repeated kind: data binding keeps the last one, which could name another model.
        if (!kind.kind().equals(Tokens.string(parser))) {
          throw NotDecoded.INSTANCE;
        }
      } else if (!kind.fields().field(object, name, parser)) {
        parser.skipChildren();
      }
    }
    Tokens.expect(parser, JsonToken.END_OBJECT);
    // fabric8 finds the class by apiVersion and kind: another version is not this model.
    if (!kind.apiVersion().equals(apiVersion)) {
      throw NotDecoded.INSTANCE;
    }
    object.setApiVersion(apiVersion);
    return object;
  }
}
