package dev.routesync.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A watcher process run beside the agent for comparison (the seed's Python loop, the JavaScript
 * client's informer), speaking one protocol: it prints {@code STARTED} once it watches, then
 * answers on stdin {@code report} with {@code REPORT <events> <last-event-nanos> <entries>
 * <writes>} (events its handlers were handed; when the last one was, CLOCK_MONOTONIC; entries in
 * its registry; writes that changed the registry) and {@code digest} with {@code DIGEST <sha256>}
 * over {@code "ns/name ip:port,ip:port\n"} per entry, keys and addresses sorted as text.
 */
final class WatcherPeer implements AutoCloseable {

  private final String name;
  private final Child child;
  private long lastEventNanos;
  private long entries;
  private long writes;

  WatcherPeer(String name, List<String> command, Path log) throws Exception {
    this.name = name;
    child = new Child(name, command, log, true);
    child.expect("STARTED", 60, TimeUnit.SECONDS);
  }

  String name() {
    return name;
  }

  long pid() {
    return child.pid();
  }

  /** Asks for a report; returns the events so far and keeps the rest for the getters. */
  long events() throws Exception {
    child.send("report");
    String[] words = child.expect("REPORT", 30, TimeUnit.SECONDS).split(" ");
    lastEventNanos = Long.parseLong(words[2]);
    entries = Long.parseLong(words[3]);
    writes = Long.parseLong(words[4]);
    return Long.parseLong(words[1]);
  }

  /** Of the last {@link #events} report. */
  long lastEventNanos() {
    return lastEventNanos;
  }

  /** Of the last {@link #events} report. */
  long entries() {
    return entries;
  }

  /** Of the last {@link #events} report. */
  long writes() {
    return writes;
  }

  String digest() throws Exception {
    child.send("digest");
    return child.expect("DIGEST", 60, TimeUnit.SECONDS).split(" ")[1];
  }

  @Override
  public void close() throws InterruptedException {
    child.close();
  }
}
