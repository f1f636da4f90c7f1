package dev.routesync.serve;

import dev.routesync.units.Durations;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * A record as JSON, component by component and by name, nested records as objects: the debug
 * bundle's {@code config.json}. Read by reflection so that a component added to the configuration
 * appears in the bundle without anyone remembering to write it. Durations print as the flags take
 * them ({@code 10s}), paths and addresses as text, an empty {@code Optional} as {@code null}.
 */
final class RecordJson {

  private RecordJson() {}

  static JsonObject of(Record record) {
    JsonObject out = new JsonObject();
    for (RecordComponent component : record.getClass().getRecordComponents()) {
      out.put(component.getName(), value(read(record, component)));
    }
    return out;
  }

  private static Object read(Record record, RecordComponent component) {
    try {
      var accessor = component.getAccessor();
      accessor.setAccessible(true); // records of other packages may be package-private
      return accessor.invoke(record);
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      return "<unreadable: " + e.getClass().getSimpleName() + ">";
    }
  }

  private static Object value(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Optional<?> optional) {
      return optional.map(RecordJson::value).orElse(null);
    }
    if (value instanceof Record nested) {
      return of(nested);
    }
    if (value instanceof Boolean || value instanceof Number || value instanceof String) {
      return value;
    }
    if (value instanceof Duration duration) {
      return Durations.format(duration);
    }
    if (value instanceof Enum<?> constant) {
      return constant.name().toLowerCase(java.util.Locale.ROOT);
    }
    if (value instanceof Path path) {
      return path.toString();
    }
    if (value instanceof InetSocketAddress address) {
      return address.getHostString() + ":" + address.getPort();
    }
    if (value instanceof Collection<?> collection) {
      JsonArray out = new JsonArray();
      collection.forEach(item -> out.add(value(item)));
      return out;
    }
    if (value instanceof Map<?, ?> map) {
      JsonObject out = new JsonObject();
      map.forEach((k, v) -> out.put(String.valueOf(k), value(v)));
      return out;
    }
    return value.toString();
  }
}
