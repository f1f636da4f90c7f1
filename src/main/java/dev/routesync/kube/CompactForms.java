package dev.routesync.kube;

import dev.routesync.kube.watch.Generation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The compact form that a second consumer of a watch keeps of each object (the drift detector's
 * {@code NodeSlice}), made by the informer's {@link ObjectStore} when the object arrives, so that
 * the store keeps no decoded object for that consumer.
 *
 * <p>The consumer reads a generation's forms once, when the generation replaces the served one
 * ({@link #handOver}): that is when it cannot see the objects, since a generation's list reaches
 * the sinks whole and not as events. From then on the generation's events carry whole objects, and
 * the consumer makes the forms of later versions itself, so the stores of that generation stop
 * making them: each object version's form is made once, and the form of an object unchanged since
 * the list is the very instance the consumer holds (no second copy).
 *
 * <p>Data flows one way: {@code kube/} knows only the function; the composition root hands it the
 * consumer's, and hands the consumer {@link #handOver}.
 *
 * <p>Threading: {@code form} runs on fabric8's informer thread and must never throw (a form that
 * throws is logged and left out: the consumer sees the object as absent); {@link #handOver} runs on
 * the sync context.
 *
 * @param <T> the watched kind
 * @param <C> the consumer's form of one object
 */
public final class CompactForms<T extends HasMetadata, C> {

  private final Function<? super T, ? extends C> form;

  public CompactForms(Function<? super T, ? extends C> form) {
    this.form = Objects.requireNonNull(form, "form");
  }

  /** The form of one object (the store's call, on the informer's thread). */
  C formOf(T object) {
    return form.apply(object);
  }

  /**
   * The forms of every object of a generation that has just synced; its stores stop making forms.
   * Called once per generation, by the consumer's {@code replaced}, before any of its events.
   */
  public List<C> handOver(Generation<T> generation) {
    List<C> forms = new ArrayList<>();
    for (ItemStore<T> store : generation.itemStores()) {
      if (store instanceof ObjectStore<T> objects) {
        objects.handOverForms(this, forms);
      }
    }
    return forms;
  }

  /** Casts what a store holds back to this consumer's type: only this instance made it. */
  @SuppressWarnings("unchecked")
  C cast(Object form) {
    return (C) form;
  }
}
