package dev.routesync.demo;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.server.mock.CustomResourceDefinitionProcessor;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import java.lang.reflect.Field;
import java.util.Map;

/**
 * The CRUD mock's attribute extractor plus the field the real API server indexes Pods by, {@code
 * spec.nodeName}, so that {@code fieldSelector=spec.nodeName=<node>} lists and watches filter by
 * node (the drift detector and Cilium-style node agents watch Pods that way). fabric8's mock
 * indexes only names, namespaces and labels, answering such a list with nothing and such a watch
 * with silence.
 *
 * <p>The index is on the stored object, so a watch sees what a real one does: ADDED when a Pod
 * starts matching (created on the node, or bound to it later: {@code spec.nodeName} is set once, by
 * the scheduler), MODIFIED while it matches, DELETED when it is deleted. A real API server refuses
 * to move a bound Pod to another node; the mock does not, and a watch then sees DELETED on the old
 * node and ADDED on the new one.
 *
 * <p>fabric8 8.0.0 offers no hook for this, so {@link #install} swaps the extractor into the
 * dispatcher's fields by reflection (the names were read from the 8.0.0 sources; a fabric8 upgrade
 * that renames them fails {@code NodeIndexTest} loudly, not silently).
 */
public final class NodeIndex extends KubernetesAttributesExtractor {

  /** The Pod field the API server can select on by equality. */
  public static final String NODE_NAME = "spec.nodeName";

  /**
   * Every object the mock stores or updates passes through here ({@code fromResource} parses and
   * calls this), and reaches it as a {@link GenericKubernetesResource}.
   */
  @Override
  public AttributeSet extract(HasMetadata object) {
    AttributeSet attributes = super.extract(object);
    String node = nodeName(object);
    return node == null || node.isEmpty()
        ? attributes
        : attributes.add(new Attribute(NODE_NAME, node));
  }

  private static String nodeName(HasMetadata object) {
    if (object instanceof Pod pod) {
      return pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    }
    if (object instanceof GenericKubernetesResource generic
        && "Pod".equals(generic.getKind())
        && generic.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
        && spec.get("nodeName") instanceof String node) {
      return node;
    }
    return null;
  }

  /**
   * Puts a node index into {@code dispatcher}'s CRUD dispatcher and its create handler.
   *
   * @return that CRUD dispatcher
   */
  public static KubernetesCrudDispatcher install(KubernetesMixedDispatcher dispatcher) {
    try {
      KubernetesCrudDispatcher crud =
          (KubernetesCrudDispatcher) read(dispatcher, "kubernetesCrudDispatcher");
      NodeIndex index = new NodeIndex();
      // Keep custom resource support: the extractor asks the CRD processor for plurals.
      index.setCustomResourceDefinitionProcessor(
          (CustomResourceDefinitionProcessor) read(crud, "crdProcessor"));
      write(crud, KubernetesCrudDispatcher.class, "kubernetesAttributesExtractor", index);
      write(crud, CrudDispatcher.class, "attributeExtractor", index);
      Object postHandler = read(crud, "postHandler");
      write(postHandler, postHandler.getClass(), "attributeExtractor", index);
      return crud;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("fabric8's mock changed: cannot install the node index", e);
    }
  }

  private static Object read(Object owner, String name) throws ReflectiveOperationException {
    for (Class<?> type = owner.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
      } catch (NoSuchFieldException next) {
        // Try the superclass.
      }
    }
    throw new NoSuchFieldException(owner.getClass().getName() + "." + name);
  }

  private static void write(Object owner, Class<?> declaring, String name, Object value)
      throws ReflectiveOperationException {
    Field field = declaring.getDeclaredField(name);
    field.setAccessible(true);
    field.set(owner, value);
  }
}
