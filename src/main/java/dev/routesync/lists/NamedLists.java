package dev.routesync.lists;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * An immutable list of named items kept sorted by name, one item per name, replaced whole on every
 * change. The stores keep each Service's objects this way: most Services have one, so the list is a
 * {@code List.of(item)} of 24 bytes, and readers on other threads see a list that never changes
 * under them.
 */
public final class NamedLists {

  private NamedLists() {}

  /** {@code items} (null for none) with {@code item} in place of any item of its name. */
  public static <T> List<T> with(List<T> items, T item, Function<T, String> name) {
    String itemName = name.apply(item);
    if (items == null || items.size() == 1 && name.apply(items.get(0)).equals(itemName)) {
      return List.of(item);
    }
    List<T> next = new ArrayList<>(items.size() + 1);
    for (T held : items) {
      if (!name.apply(held).equals(itemName)) {
        next.add(held);
      }
    }
    next.add(item);
    next.sort(Comparator.comparing(name));
    return List.copyOf(next);
  }

  /** {@code items} without the item named {@code itemName}; null when none is left. */
  public static <T> List<T> without(List<T> items, String itemName, Function<T, String> name) {
    List<T> next = new ArrayList<>(items.size());
    for (T held : items) {
      if (!name.apply(held).equals(itemName)) {
        next.add(held);
      }
    }
    return next.isEmpty() ? null : List.copyOf(next);
  }
}
