/**
 * A small Kubernetes Event recorder ({@code events.k8s.io/v1}): fabric8 has none. {@link
 * dev.routesync.kube.events.EventRecorder} writes one Warning Event per deduplication key, folds
 * repeats into the Event's {@code series} (patched at most once per series interval), shares one
 * token bucket among all keys, bounds its memory, and never blocks or throws at its caller: the
 * blocking fabric8 calls run on one worker thread with a bounded queue. What happens to each Event
 * is reported through {@link dev.routesync.kube.events.EventObserver}; the metrics behind it live
 * in {@code observe/}.
 */
package dev.routesync.kube.events;
