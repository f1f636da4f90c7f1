package dev.routesync.kube.decode;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.function.Consumer;
import tools.jackson.core.JsonParser;

/**
 * Object and list metadata, and object references. {@code managedFields} is skipped: nothing in the
 * agent reads it, and on a real API server it is often the largest part of a small object.
 */
final class MetaReader {

  private MetaReader() {}

  static ObjectMeta objectMeta(JsonParser parser) {
    ObjectMeta meta = new ObjectMeta();
    return Tokens.object(
        parser,
        meta,
        (name, value) -> {
          switch (name) {
            case "name" -> meta.setName(Tokens.string(value));
            case "namespace" -> meta.setNamespace(Tokens.string(value));
            case "uid" -> meta.setUid(Tokens.string(value));
            case "resourceVersion" -> meta.setResourceVersion(Tokens.string(value));
            case "generation" -> meta.setGeneration(Tokens.longValue(value));
            case "creationTimestamp" -> meta.setCreationTimestamp(Tokens.string(value));
            case "deletionTimestamp" -> meta.setDeletionTimestamp(Tokens.string(value));
            case "deletionGracePeriodSeconds" ->
                meta.setDeletionGracePeriodSeconds(Tokens.longValue(value));
            case "labels" -> meta.setLabels(Tokens.stringMap(value));
            case "annotations" -> meta.setAnnotations(Tokens.stringMap(value));
            case "ownerReferences" ->
                meta.setOwnerReferences(Tokens.list(value, MetaReader::ownerReference));
            case "finalizers" -> meta.setFinalizers(Tokens.strings(value));
            case "generateName" -> meta.setGenerateName(Tokens.string(value));
            case "selfLink" -> meta.setSelfLink(Tokens.string(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  /**
   * One field of a list as data binding reads it: its own apiVersion and kind whatever they say
   * (the CRUD mock writes {@code v1 List}), its metadata, and its items ({@code items} reads them).
   */
  static boolean listField(
      String name,
      JsonParser value,
      Consumer<String> apiVersion,
      Consumer<String> kind,
      Consumer<ListMeta> metadata,
      Runnable items) {
    switch (name) {
      case "apiVersion" -> apiVersion.accept(Tokens.string(value));
      case "kind" -> kind.accept(Tokens.string(value));
      case "metadata" -> metadata.accept(listMeta(value));
      case "items" -> items.run();
      default -> {
        return false;
      }
    }
    return true;
  }

  private static ListMeta listMeta(JsonParser parser) {
    ListMeta meta = new ListMeta();
    return Tokens.object(
        parser,
        meta,
        (name, value) -> {
          switch (name) {
            case "resourceVersion" -> meta.setResourceVersion(Tokens.string(value));
            case "continue" -> meta.setContinue(Tokens.string(value));
            case "remainingItemCount" -> meta.setRemainingItemCount(Tokens.longValue(value));
            case "selfLink" -> meta.setSelfLink(Tokens.string(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  static ObjectReference objectReference(JsonParser parser) {
    ObjectReference reference = new ObjectReference();
    return Tokens.object(
        parser,
        reference,
        (name, value) -> {
          switch (name) {
            case "kind" -> reference.setKind(Tokens.string(value));
            case "namespace" -> reference.setNamespace(Tokens.string(value));
            case "name" -> reference.setName(Tokens.string(value));
            case "uid" -> reference.setUid(Tokens.string(value));
            case "apiVersion" -> reference.setApiVersion(Tokens.string(value));
            case "resourceVersion" -> reference.setResourceVersion(Tokens.string(value));
            case "fieldPath" -> reference.setFieldPath(Tokens.string(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }

  private static OwnerReference ownerReference(JsonParser parser) {
    OwnerReference reference = new OwnerReference();
    return Tokens.object(
        parser,
        reference,
        (name, value) -> {
          switch (name) {
            case "apiVersion" -> reference.setApiVersion(Tokens.string(value));
            case "kind" -> reference.setKind(Tokens.string(value));
            case "name" -> reference.setName(Tokens.string(value));
            case "uid" -> reference.setUid(Tokens.string(value));
            case "controller" -> reference.setController(Tokens.bool(value));
            case "blockOwnerDeletion" -> reference.setBlockOwnerDeletion(Tokens.bool(value));
            default -> {
              return false;
            }
          }
          return true;
        });
  }
}
