package dev.routesync.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.ListResponse;
import dev.routesync.api.v1.ServiceEndpoints;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every answer the CLI reads is bounded by one documented cap, 16 MiB a message; one over it is a
 * one-line error in words, and a table under it is read whole (Vert.x's default, 256 KiB, failed a
 * List of a few thousand endpoints).
 */
@Timeout(60)
class BoundedReadsTest {

  @TempDir Path dir;

  /** A List answer of about {@code mebibytes} MiB (Service names of 1 MiB each: no check here). */
  private static ListResponse listOf(int mebibytes) {
    ListResponse.Builder list = ListResponse.newBuilder().setVersion(7);
    String longName = "n".repeat(1 << 20);
    for (int i = 0; i < mebibytes; i++) {
      list.addServices(
          ServiceEndpoints.newBuilder().setNamespace("ns" + i).setName(longName).setVersion(7));
    }
    return list.build();
  }

  @Test
  void anAnswerOverTheCapIsOneLineInWords() throws Exception {
    try (FakeAgent agent = new FakeAgent(dir.resolve("rs.sock")).list(listOf(17)).start()) {
      Cli.Result result = Cli.run("get", "services", "--socket", agent.socket.toString());

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.err().lines())
          .singleElement()
          .asString()
          .startsWith("routesync: the agent on " + agent.socket + " sent a message of ")
          .contains("more than the 16 MiB this client reads")
          .doesNotContain("Exception");
    }
  }

  @Test
  void anAnswerUnderTheCapIsReadWhole() throws Exception {
    try (FakeAgent agent = new FakeAgent(dir.resolve("rs.sock")).list(listOf(2)).start()) {
      Cli.Result result = Cli.run("get", "services", "--socket", agent.socket.toString());

      assertThat(result.err()).isEmpty();
      assertThat(result.exitCode()).isZero();
      assertThat(result.out().lines()).hasSize(3); // the header and two Services
    }
  }
}
