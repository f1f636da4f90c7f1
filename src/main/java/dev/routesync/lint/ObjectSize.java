package dev.routesync.lint;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/** Counts the nodes of an object as YAML constructs it: maps, lists and their scalars. */
final class ObjectSize {

  private ObjectSize() {}

  /**
   * Every map, list and scalar, keys included; a collection reached twice (through an alias) counts
   * twice, as what is built from it does.
   */
  static long nodes(Object value) {
    long count = 0;
    Deque<Object> todo = new ArrayDeque<>();
    todo.push(value == null ? "" : value);
    while (!todo.isEmpty()) {
      Object at = todo.pop();
      count++;
      if (at instanceof Map<?, ?> map) {
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          pushNonNull(todo, entry.getKey());
          pushNonNull(todo, entry.getValue());
        }
      } else if (at instanceof List<?> list) {
        for (Object item : list) {
          pushNonNull(todo, item);
        }
      }
    }
    return count;
  }

  private static void pushNonNull(Deque<Object> todo, Object value) {
    // ArrayDeque takes no null; a null scalar is a node all the same.
    todo.push(value == null ? "" : value);
  }
}
