package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Archives written by {@link UstarWriter}, read back by the system's {@code tar}. */
class UstarWriterTest {

  @TempDir Path folder;

  @Test
  void theSystemTarListsAndExtractsEveryEntryByteForByte() throws Exception {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    entries.put("bundle/empty.txt", new byte[0]);
    entries.put("bundle/one.txt", "x".getBytes(StandardCharsets.UTF_8));
    entries.put("bundle/block.bin", random(512, 1));
    entries.put("bundle/block-and-one.bin", random(513, 2));
    entries.put("bundle/large.bin", random(300_001, 3));
    entries.put("bundle/grüße.txt", "ünïcödé\n".getBytes(StandardCharsets.UTF_8));
    entries.put("bundle/" + "n".repeat(99 - "bundle/".length()), "longest name".getBytes());
    long mtime = 1_780_000_000L;

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      UstarWriter tar = new UstarWriter(gzip, mtime);
      for (var entry : entries.entrySet()) {
        tar.add(entry.getKey(), entry.getValue());
      }
      tar.finish();
    }
    Files.write(folder.resolve("out.tar.gz"), bytes.toByteArray());

    String listing = SystemTar.run(folder, "-tzvf", "out.tar.gz");
    assertThat(listing.lines()).hasSize(entries.size());
    assertThat(listing.lines()).allSatisfy(line -> assertThat(line).startsWith("-rw-r--r--"));
    assertThat(listing).contains("bundle/large.bin").contains("300001");

    Path extracted = Files.createDirectory(folder.resolve("x"));
    SystemTar.run(extracted, "-xzf", "../out.tar.gz");
    for (var entry : entries.entrySet()) {
      Path file = extracted.resolve(entry.getKey());
      assertThat(Files.readAllBytes(file)).as(entry.getKey()).isEqualTo(entry.getValue());
      assertThat(Files.getLastModifiedTime(file).toMillis() / 1000).isEqualTo(mtime);
    }
  }

  @Test
  void refusesNamesThatDoNotFitTheNameField() {
    UstarWriter tar = new UstarWriter(new ByteArrayOutputStream(), 0);
    assertThatThrownBy(() -> tar.add("n".repeat(100), new byte[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 to 99 bytes");
    assertThatThrownBy(() -> tar.add("", new byte[1])).isInstanceOf(IllegalArgumentException.class);
  }

  private static byte[] random(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
