package dev.routesync.client;

import dev.routesync.config.DebugListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code routesync debug bundle --output-file FILE}: fetches {@code GET /debug/bundle} from the
 * agent's debug listener and writes it atomically (a temporary file beside FILE, then a move), so
 * that FILE is either the whole bundle or untouched. Exit codes: 0 written, 1 the agent could not
 * be reached or answered an error (its JSON error printed), 2 bad usage.
 */
@Command(
    name = "bundle",
    mixinStandardHelpOptions = true,
    description =
        "Save a debug bundle (status, configuration without secrets, metrics, recent logs, thread"
            + " dump, version) as a .tar.gz, to attach to a bug report.")
public final class DebugBundleCommand implements Callable<Integer> {

  static final String DEFAULT_ADDRESS =
      DebugListener.DEFAULT_HOST + ":" + DebugListener.DEFAULT_PORT;
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration TOTAL_TIMEOUT = Duration.ofSeconds(60);
  // The agent bounds a bundle to 32 MiB uncompressed; a larger answer is not a bundle.
  static final long MAX_BYTES = 64L << 20;
  private static final int MAX_ERROR_BYTES = 16 * 1024;

  @Spec CommandSpec spec;

  @Option(
      // A file is --output-file in every command; -o names a format.
      names = "--output-file",
      required = true,
      paramLabel = "FILE",
      description = "Where to write the bundle (.tar.gz); - for standard output.")
  String output;

  @Option(
      names = "--debug-address",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:ROUTESYNC_DEBUG_ADDRESS:-" + DEFAULT_ADDRESS + "}",
      converter = DebugAddress.Converter.class,
      description =
          "The agent's debug listener (default: ${DEFAULT-VALUE}). Env: ROUTESYNC_DEBUG_ADDRESS")
  DebugAddress address;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      return fetch(out, err);
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int fetch(PrintWriter out, PrintWriter err) {
    HttpClient http =
        HttpClient.newBuilder()
            .connectTimeout(CONNECT_TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(address.base().resolve("/debug/bundle"))
            .timeout(TOTAL_TIMEOUT)
            .GET()
            .build();
    HttpResponse<InputStream> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpTimeoutException e) {
      err.println(
          "routesync: the agent's debug listener at " + address + " did not answer in time");
      return ExitCode.SOFTWARE;
    } catch (IOException e) {
      err.println(
          "routesync: cannot reach the agent's debug listener at "
              + address
              + ": "
              + reason(e)
              + " (is the agent running with its debug listener on, and the port forwarded:"
              + " kubectl port-forward POD "
              + address.port()
              + "?)");
      return ExitCode.SOFTWARE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("routesync: interrupted");
      return ExitCode.SOFTWARE;
    }
    try (InputStream body = response.body()) {
      if (response.statusCode() != 200) {
        String answer =
            new String(body.readNBytes(MAX_ERROR_BYTES), StandardCharsets.UTF_8).strip();
        err.println("routesync: the agent answered " + response.statusCode() + ": " + answer);
        return ExitCode.SOFTWARE;
      }
      return write(body, out, err);
    } catch (IOException e) {
      err.println("routesync: reading the bundle from " + address + " failed: " + reason(e));
      return ExitCode.SOFTWARE;
    }
  }

  private int write(InputStream body, PrintWriter out, PrintWriter err) throws IOException {
    if (output.equals("-")) {
      OutputStream stdout = System.out;
      long size = copy(body, stdout);
      stdout.flush();
      err.println("wrote the bundle to standard output (" + size + " bytes)");
      return ExitCode.OK;
    }
    Path target = Path.of(output).toAbsolutePath();
    Path folder = target.getParent();
    Path temporary;
    try {
      temporary = Files.createTempFile(folder, "." + target.getFileName() + ".", ".part");
    } catch (IOException e) {
      err.println("routesync: cannot write in " + folder + ": " + reason(e));
      return ExitCode.SOFTWARE;
    }
    try {
      long size;
      try (OutputStream file = Files.newOutputStream(temporary)) {
        size = copy(body, file);
      }
      move(temporary, target);
      out.println("wrote " + target + " (" + size + " bytes)");
      return ExitCode.OK;
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static long copy(InputStream in, OutputStream out) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long total = 0;
    for (int read; (read = in.read(buffer)) >= 0; ) {
      total += read;
      if (total > MAX_BYTES) {
        throw new IOException("the answer is larger than " + MAX_BYTES + " bytes: not a bundle");
      }
      out.write(buffer, 0, read);
    }
    return total;
  }

  private static String reason(IOException e) {
    if (e instanceof ConnectException) {
      return "connection refused";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
