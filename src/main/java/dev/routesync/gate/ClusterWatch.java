package dev.routesync.gate;

import dev.routesync.rules.ControllerSlices;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The gate's three informers on one namespace: Pods, the target Services, and the EndpointSlices
 * that belong to a Service. Every event only says "changed"; the gate reads the caches when it
 * evaluates, so a burst of events costs one evaluation (the caller coalesces).
 */
final class ClusterWatch implements AutoCloseable {

  /** A call to the API server failed; the message names the verb and the resource. */
  static final class CannotEvaluate extends Exception {
    CannotEvaluate(String message) {
      super(message);
    }
  }

  private final KubernetesClient client;
  private final Targets targets;
  private final List<Watched<?>> watched = new ArrayList<>();
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<EndpointSlice> slices;

  /**
   * @param changed called (on fabric8's threads) after every event
   * @param lost called (on fabric8's threads) when a watch is refused for good (401, 403)
   */
  ClusterWatch(KubernetesClient client, Targets targets, Runnable changed, Consumer<String> lost) {
    this.client = client;
    this.targets = targets;
    String namespace = targets.namespace();
    FilterWatchListDeletable<Service, ServiceList, ?> serviceOps =
        targets.selector().isPresent()
            ? client.services().inNamespace(namespace).withLabelSelector(targets.selector().get())
            : client.services().inNamespace(namespace);
    pods = add("pods", client.pods().inNamespace(namespace), changed, lost);
    services = add("services", serviceOps, changed, lost);
    slices =
        add(
            "endpointslices.discovery.k8s.io",
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(namespace)
                .withLabel(ControllerSlices.SERVICE_NAME_LABEL),
            changed,
            lost);
  }

  /**
   * Lists each resource once (one object), so that a missing permission or an unreachable server is
   * reported as the verb that failed, before any informer starts.
   */
  void checkAccess() throws CannotEvaluate {
    for (Watched<?> w : watched) {
      try {
        w.ops.list(new ListOptionsBuilder().withLimit(1L).build());
      } catch (RuntimeException e) {
        throw new CannotEvaluate(describe("list", w.resource, e));
      }
    }
  }

  /** Starts the informers and waits until all have listed and are watching. */
  void start(Duration within) throws CannotEvaluate {
    for (Watched<?> w : watched) {
      CompletableFuture<Void> started = w.informer.start().toCompletableFuture();
      try {
        started.get(Math.max(1, within.toMillis()), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw new CannotEvaluate(describe("watch", w.resource, e.getCause()));
      } catch (TimeoutException e) {
        throw new CannotEvaluate(
            "cannot watch "
                + w.resource
                + " in namespace "
                + targets.namespace()
                + ": no answer within "
                + dev.routesync.units.Durations.format(within));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CannotEvaluate("interrupted while starting the watch of " + w.resource);
      }
    }
  }

  Snapshot snapshot() {
    return new Snapshot(
        services.getStore().list(), pods.getStore().list(), slices.getStore().list());
  }

  @Override
  public void close() {
    for (Watched<?> w : watched) {
      w.informer.stop();
    }
  }

  private <T extends HasMetadata, L extends KubernetesResourceList<T>> SharedIndexInformer<T> add(
      String resource,
      FilterWatchListDeletable<T, L, ?> ops,
      Runnable changed,
      Consumer<String> lost) {
    SharedIndexInformer<T> informer = ops.runnableInformer(0);
    informer.exceptionHandler(
        (isStarted, error) -> {
          if (!isStarted) {
            return false; // start() reports it, naming the resource
          }
          if (ApiFailures.isRefusal(error)) {
            lost.accept(describe("watch", resource, error));
            return false;
          }
          return true; // fabric8 reconnects; --timeout bounds the wait
        });
    informer.addEventHandler(
        new ResourceEventHandler<T>() {
          @Override
          public void onAdd(T object) {
            changed.run();
          }

          @Override
          public void onUpdate(T before, T after) {
            changed.run();
          }

          @Override
          public void onDelete(T object, boolean finalStateUnknown) {
            changed.run();
          }
        });
    watched.add(new Watched<>(resource, ops, informer));
    return informer;
  }

  private String describe(String verb, String resource, Throwable error) {
    String server = client.getConfiguration().getMasterUrl();
    return ApiFailures.describe(
        verb,
        resource,
        targets.namespace(),
        server.endsWith("/") ? server.substring(0, server.length() - 1) : server,
        error);
  }

  private record Watched<T extends HasMetadata>(
      String resource, FilterWatchListDeletable<T, ?, ?> ops, SharedIndexInformer<T> informer) {}
}
