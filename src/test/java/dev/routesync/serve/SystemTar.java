package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The system's {@code tar}: an independent reader of the archives {@link UstarWriter} writes. */
final class SystemTar {

  private SystemTar() {}

  /** Runs {@code tar ARGS} in {@code folder}; returns its standard output, asserting exit 0. */
  static String run(Path folder, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("tar"));
    command.addAll(List.of(args));
    Process tar =
        new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true).start();
    tar.getOutputStream().close();
    boolean ended = tar.waitFor(30, TimeUnit.SECONDS);
    if (!ended) {
      tar.destroyForcibly();
    }
    String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ended).as("tar ended within 30s").isTrue();
    assertThat(tar.exitValue()).as("tar %s: %s", List.of(args), output).isZero();
    return output;
  }
}
