package dev.routesync.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real client process under another uid and gid: {@code setpriv --reuid=U --regid=G
 * --clear-groups python3 -c ...}, a small Python client on the agent's Unix socket (Python starts
 * in ~0.1 s; a JVM would take a second per process). Only root may change its uid, so tests using
 * this first call {@link #assumeAvailable()}, which skips them with a message saying why.
 *
 * <p>The socket is {@code 0660} and owned by the test's uid and group: a client under another uid
 * gets in through the group, so give it gid 0 when the test runs as root (or run it as uid 0 with
 * another gid: root's capabilities pass the file's mode).
 */
public final class SetprivClient {

  private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
  private static final List<Path> PYTHONS = List.of(Path.of("/usr/bin/python3"));

  // One GET, then everything until the server closes; "" when it closed without an answer. In
  // "hold" mode: connect, then wait for stdin to close (the test kills the process).
  private static final String SCRIPT =
      String.join(
          "\n",
          "import socket, sys",
          "path, mode = sys.argv[1], sys.argv[2]",
          "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
          "s.settimeout(10)",
          "s.connect(path)",
          "if mode == 'hold':",
          "    sys.stdin.read()",
          "    sys.exit(0)",
          "got = b''",
          "try:",
          "    s.sendall(b'GET /v1/services HTTP/1.1\\r\\nHost: localhost\\r\\n"
              + "Connection: close\\r\\n\\r\\n')",
          "    while True:",
          "        chunk = s.recv(65536)",
          "        if not chunk:",
          "            break",
          "        got += chunk",
          "except (BrokenPipeError, ConnectionResetError):",
          "    pass",
          "sys.stdout.write(got.decode('latin-1'))",
          "");

  private SetprivClient() {}

  /** The uid this JVM runs as (the owner of {@code /proc/self}). */
  public static int ownUid() {
    return procSelf("unix:uid");
  }

  /** The primary gid this JVM runs as. */
  public static int ownGid() {
    return procSelf("unix:gid");
  }

  private static int procSelf(String attribute) {
    try {
      return (Integer) Files.getAttribute(Path.of("/proc/self"), attribute);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + attribute + " of /proc/self", e);
    }
  }

  /** Skips the calling test, loudly, unless clients can run under other uids here. */
  public static void assumeAvailable() {
    String why =
        ownUid() != 0
            ? "not running as root (uid " + ownUid() + ")"
            : !Files.isExecutable(SETPRIV)
                ? SETPRIV + " is missing"
                : python() == null ? "no python3 at " + PYTHONS : null;
    if (why != null) {
      System.err.println("SKIPPED: a client under another uid needs root and setpriv: " + why);
    }
    assumeTrue(why == null, () -> "SKIPPED: a client under another uid needs root: " + why);
  }

  /** Lets other uids reach the socket through its directory (search only, no listing). */
  public static void openDirectory(Path socket) throws IOException {
    Files.setPosixFilePermissions(socket.getParent(), PosixFilePermissions.fromString("rwx--x--x"));
  }

  /**
   * One {@code GET /v1/services} on {@code socket} from a process of {@code uid}:{@code gid}.
   *
   * @return what it received, {@code ""} when the server closed without an answer
   */
  public static String get(Path socket, int uid, int gid) throws Exception {
    Process process = start(socket, uid, gid, "get");
    process.getOutputStream().close();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("client as " + uid + ":" + gid + " still running after 20 s");
    }
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          "client as " + uid + ":" + gid + " exited " + process.exitValue() + ": " + err);
    }
    return out;
  }

  /** A process of {@code uid}:{@code gid} holding one connection to {@code socket} until closed. */
  public static Held hold(Path socket, int uid, int gid) throws IOException {
    return new Held(start(socket, uid, gid, "hold"));
  }

  private static Process start(Path socket, int uid, int gid, String mode) throws IOException {
    return new ProcessBuilder(
            SETPRIV.toString(),
            "--reuid=" + uid,
            "--regid=" + gid,
            "--clear-groups",
            python().toString(),
            "-c",
            SCRIPT,
            socket.toAbsolutePath().toString(),
            mode)
        .start();
  }

  private static Path python() {
    return PYTHONS.stream().filter(Files::isExecutable).findFirst().orElse(null);
  }

  /** A client process holding its connection; {@link #close()} kills it, closing the socket. */
  public static final class Held implements AutoCloseable {
    private final Process process;

    private Held(Process process) {
      this.process = process;
    }

    public boolean alive() {
      return process.isAlive();
    }

    /** What it wrote to stderr (after it ended), for a failure message. */
    public String errors() throws IOException {
      return process.isAlive()
          ? "(still running)"
          : new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    }
  }
}
