package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * fabric8's decoding of a document with what the fast path leaves out taken away (unknown fields,
 * which data binding keeps as additional properties, and {@code managedFields}), so that the two
 * decodings compare with {@code equals}.
 */
final class ModelsForTests {

  private ModelsForTests() {}

  /**
   * Strips {@code model} in place and returns it; a watch event's Pod is replaced by what {@link
   * PodReader} keeps of it ({@link PodProjection}).
   */
  static <T> T withoutLeftOuts(T model) {
    if (model instanceof WatchEvent event && event.getObject() instanceof Pod pod) {
      event.setObject(PodProjection.kept(pod));
      return model;
    }
    strip(model);
    return model;
  }

  private static void strip(Object value) {
    if (value instanceof Collection<?> values) {
      values.forEach(ModelsForTests::strip);
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.values().forEach(ModelsForTests::strip);
      return;
    }
    if (!(value instanceof KubernetesResource)) {
      return;
    }
    if (value instanceof ObjectMeta meta) {
      meta.setManagedFields(new ArrayList<>());
    }
    for (Method method : value.getClass().getMethods()) {
      if (method.getParameterCount() != 0 || method.getDeclaringClass() == Object.class) {
        continue;
      }
      try {
        if (method.getName().equals("getAdditionalProperties")) {
          value
              .getClass()
              .getMethod("setAdditionalProperties", Map.class)
              .invoke(value, new LinkedHashMap<>());
        } else if (method.getName().startsWith("get")) {
          strip(method.invoke(value));
        }
      } catch (ReflectiveOperationException e) {
        if (!(e instanceof InvocationTargetException)) {
          throw new AssertionError(e);
        }
      }
    }
  }
}
