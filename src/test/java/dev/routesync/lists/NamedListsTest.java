package dev.routesync.lists;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class NamedListsTest {

  private record Item(String name, int version) {}

  private static final Function<Item, String> NAME = Item::name;

  @Test
  void anItemReplacesTheOneOfItsNameAndTheListStaysSortedByName() {
    List<Item> one = NamedLists.with(null, new Item("b", 1), NAME);
    List<Item> two = NamedLists.with(one, new Item("a", 1), NAME);
    List<Item> replaced = NamedLists.with(two, new Item("b", 2), NAME);

    assertThat(one).containsExactly(new Item("b", 1));
    assertThat(two).containsExactly(new Item("a", 1), new Item("b", 1));
    assertThat(replaced).containsExactly(new Item("a", 1), new Item("b", 2));
    assertThat(NamedLists.with(one, new Item("b", 3), NAME)).containsExactly(new Item("b", 3));
    assertThatThrownBy(() -> replaced.add(new Item("c", 1)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void removingTheLastItemLeavesNull() {
    List<Item> two = List.of(new Item("a", 1), new Item("b", 1));

    assertThat(NamedLists.without(two, "a", NAME)).containsExactly(new Item("b", 1));
    assertThat(NamedLists.without(two, "z", NAME)).isEqualTo(two);
    assertThat(NamedLists.without(List.of(new Item("a", 1)), "a", NAME)).isNull();
  }
}
