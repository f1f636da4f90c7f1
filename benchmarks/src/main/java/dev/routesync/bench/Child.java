package dev.routesync.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A process this benchmark started: its stdout read line by line into a queue (the protocol), its
 * stderr to a log file, commands to its stdin. {@link #close} kills it (and what it started).
 */
final class Child implements AutoCloseable {

  private static final String EOF = "\u0000EOF";

  private final String name;
  private final Process process;
  private final PrintStream in;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Path log;

  Child(String name, List<String> command, Path log, boolean protocolOnStdout) throws IOException {
    this.name = name;
    this.log = log;
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
    if (!protocolOnStdout) {
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    }
    process = builder.start();
    in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    if (protocolOnStdout) {
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = out.readLine()) != null) {
                    lines.add(line);
                  }
                } catch (IOException e) {
                  // the process ended
                }
                lines.add(EOF);
              },
              name + "-stdout");
      reader.setDaemon(true);
      reader.start();
    }
  }

  long pid() {
    return process.pid();
  }

  void send(String command) {
    in.println(command);
  }

  /** The next protocol line starting with {@code prefix} (others skipped), or fails. */
  String expect(String prefix, long timeout, TimeUnit unit) throws Exception {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null || line.equals(EOF)) {
        throw new IllegalStateException(
            name
                + (line == null ? ": no " + prefix + " line in time" : ": exited")
                + "; its log ("
                + log
                + ") ends:\n"
                + tail());
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** Protocol lines up to (and including) the first starting with {@code last}. */
  List<String> until(String last, long timeout, TimeUnit unit) throws Exception {
    java.util.ArrayList<String> got = new java.util.ArrayList<>();
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null || line.equals(EOF)) {
        throw new IllegalStateException(name + ": no " + last + " line; log ends:\n" + tail());
      }
      got.add(line);
      if (line.startsWith(last)) {
        return got;
      }
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  String tail() {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - 20), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }
}
