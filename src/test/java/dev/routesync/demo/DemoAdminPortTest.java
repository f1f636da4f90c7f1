package dev.routesync.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A demo whose admin port is taken (another demo, a local agent) says how to run without it. */
@Timeout(120)
class DemoAdminPortTest {

  @TempDir Path dir;

  @Test
  void aTakenAdminPortSaysToPassAdminPortZero() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("0.0.0.0"))) {
      StringWriter err = new StringWriter();
      CommandLine demo = Main.commandLine();
      demo.setErr(new PrintWriter(err, true));

      int exitCode =
          demo.execute(
              "demo",
              "--admin-port",
              Integer.toString(taken.getLocalPort()),
              "--socket",
              dir.resolve("demo.sock").toString(),
              "--state-file=",
              "--shutdown-timeout",
              "5s");

      assertThat(exitCode).as(err.toString()).isEqualTo(1);
      assertThat(err.toString())
          .contains("admin listener 0.0.0.0:" + taken.getLocalPort() + ": address already in use")
          .contains(
              "routesync demo: the admin port "
                  + taken.getLocalPort()
                  + " is taken; pass --admin-port 0 to run the demo without it.");
    }
  }
}
