package dev.routesync.kube.events;

import java.util.Locale;

/** What became of one Event write the recorder wanted to make: a fixed, bounded label set. */
public enum EventResult {
  /** An Event was created (first observation, or recreated after it was garbage-collected). */
  CREATED,
  /** An Event's series (count, last observed time) was patched. */
  UPDATED,
  /** A new key's Event was not written: the shared token bucket was empty. */
  DROPPED_RATE_LIMIT,
  /** A write was not queued: the worker's queue was full (the API server is slow or away). */
  DROPPED_QUEUE_FULL,
  /** The API server refused the write or could not be reached; logged at most once a minute. */
  FAILED;

  /** The metric label: the constant's name in lower case. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
