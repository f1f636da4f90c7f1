package dev.routesync.lint;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * The size of an object as YAML constructs it: its nodes (maps, lists and scalars, keys included)
 * and the characters of its strings. A collection reached twice (through an alias) counts twice, as
 * what is mapped from it does.
 *
 * @param nodes maps, lists and scalars
 * @param chars the characters of the string scalars
 */
record ObjectSize(long nodes, long chars) {

  static ObjectSize of(Object value) {
    long nodes = 0;
    long chars = 0;
    Deque<Object> todo = new ArrayDeque<>();
    push(todo, value);
    while (!todo.isEmpty()) {
      Object at = todo.pop();
      nodes++;
      if (at instanceof Map<?, ?> map) {
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          push(todo, entry.getKey());
          push(todo, entry.getValue());
        }
      } else if (at instanceof List<?> list) {
        for (Object item : list) {
          push(todo, item);
        }
      } else if (at instanceof String text) {
        chars += text.length();
      }
    }
    return new ObjectSize(nodes, chars);
  }

  ObjectSize plus(ObjectSize other) {
    return new ObjectSize(nodes + other.nodes, chars + other.chars);
  }

  private static void push(Deque<Object> todo, Object value) {
    // ArrayDeque takes no null; a null scalar is a node all the same (and has no characters).
    todo.push(value == null ? Boolean.FALSE : value);
  }
}
