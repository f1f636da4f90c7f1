package dev.routesync.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ServiceIndexTest {

  private static ServiceEndpoints entry(String namespace, String name, long version) {
    return new ServiceEndpoints(new ServiceKey(namespace, name), version, List.of());
  }

  private static ServiceIndex of(ServiceEndpoints... entries) {
    ServiceIndex.Editor editor = ServiceIndex.empty().edit();
    for (ServiceEndpoints entry : entries) {
      editor.put(entry);
    }
    return editor.build();
  }

  private static List<String> keys(Collection<ServiceEndpoints> entries) {
    return entries.stream().map(e -> e.key().toString()).toList();
  }

  @Test
  void iteratesInKeyOrderWhateverTheInsertionOrder() {
    ServiceIndex index =
        of(entry("b", "x", 1), entry("a", "z", 1), entry("a", "b", 1), entry("ab", "a", 1));

    assertThat(keys(index.inOrder())).containsExactly("a/b", "a/z", "ab/a", "b/x");
    assertThat(index.inOrder()).hasSize(4);
    assertThat(index.size()).isEqualTo(4);
  }

  @Test
  void aNamespaceRangeHoldsThatNamespaceOnlyNotThoseItIsAPrefixOf() {
    ServiceIndex index =
        of(
            entry("shop", "b", 1),
            entry("shop", "a", 1),
            entry("sho", "z", 1),
            entry("shop2", "a", 1),
            entry("shop-x", "a", 1),
            entry("shop\0", "a", 1));

    assertThat(keys(index.inNamespace("shop"))).containsExactly("shop/a", "shop/b");
    assertThat(index.inNamespace("shop")).hasSize(2);
    assertThat(keys(index.inNamespace("sho"))).containsExactly("sho/z");
    assertThat(index.inNamespace("none")).isEmpty();
  }

  @Test
  void replacingAnEntryKeepsItsPlaceAndTheOldIndexUnchanged() {
    ServiceIndex first = of(entry("a", "x", 1), entry("a", "y", 1));
    ServiceIndex.Editor editor = first.edit();
    editor.put(entry("a", "x", 2));
    ServiceIndex second = editor.build();

    assertThat(second.get(new ServiceKey("a", "x")).version()).isEqualTo(2);
    assertThat(keys(second.inOrder())).containsExactly("a/x", "a/y");
    assertThat(second.size()).isEqualTo(2);
    assertThat(first.get(new ServiceKey("a", "x")).version()).isEqualTo(1);
  }

  @Test
  void removalTakesTheKeyOutOfLookupsOrderAndRanges() {
    ServiceIndex first = of(entry("a", "x", 1), entry("a", "y", 1), entry("b", "x", 1));
    ServiceIndex.Editor editor = first.edit();
    editor.remove(new ServiceKey("a", "x"));
    editor.remove(new ServiceKey("a", "x"));
    editor.remove(new ServiceKey("never", "there"));
    ServiceIndex second = editor.build();

    assertThat(second.get(new ServiceKey("a", "x"))).isNull();
    assertThat(second.size()).isEqualTo(2);
    assertThat(keys(second.inOrder())).containsExactly("a/y", "b/x");
    assertThat(keys(second.inNamespace("a"))).containsExactly("a/y");
    assertThat(keys(first.inOrder())).containsExactly("a/x", "a/y", "b/x");
  }

  @Test
  void anEditThatChangesNothingBuildsTheSameIndex() {
    ServiceIndex index = of(entry("a", "x", 1));
    ServiceIndex.Editor editor = index.edit();
    editor.remove(new ServiceKey("a", "y"));

    assertThat(editor.build()).isSameAs(index);
  }

  @Test
  void followsASortedMapThroughRandomEdits() {
    Random random = new Random(12);
    TreeMap<ServiceKey, ServiceEndpoints> model = new TreeMap<>();
    ServiceIndex index = ServiceIndex.empty();
    List<ServiceIndex> versions = new ArrayList<>();
    List<List<String>> expected = new ArrayList<>();
    for (int batch = 0; batch < 200; batch++) {
      ServiceIndex.Editor editor = index.edit();
      for (int i = 0; i < 20; i++) {
        ServiceKey key = new ServiceKey("ns" + random.nextInt(4), "s" + random.nextInt(60));
        if (random.nextInt(3) == 0) {
          editor.remove(key);
          model.remove(key);
        } else {
          ServiceEndpoints entry = new ServiceEndpoints(key, batch, List.of());
          editor.put(entry);
          model.put(key, entry);
        }
      }
      index = editor.build();
      versions.add(index);
      expected.add(keys(model.values()));
      assertThat(index.inOrder()).containsExactlyElementsOf(model.values());
      assertThat(index.inNamespace("ns1"))
          .containsExactlyElementsOf(
              model.subMap(new ServiceKey("ns1", ""), new ServiceKey("ns2", "")).values());
    }
    // Every earlier version still reads as it was built: edits never reach back.
    for (int v = 0; v < versions.size(); v++) {
      assertThat(keys(versions.get(v).inOrder())).isEqualTo(expected.get(v));
    }
  }
}
