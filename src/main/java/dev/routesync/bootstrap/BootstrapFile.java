package dev.routesync.bootstrap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes the bootstrap so that a reader sees the old file or the new one, never a part: a temporary
 * file beside it, flushed to disk, then renamed over it. Mode 0644, whatever the umask: the file
 * holds no secret, and the application that reads it often runs as another user than the init
 * container that writes it.
 */
final class BootstrapFile {

  private BootstrapFile() {}

  static void write(Path target, String content) throws IOException {
    Path file = target.toAbsolutePath().normalize();
    Path dir = file.getParent();
    if (!Files.isDirectory(dir)) {
      throw new NoSuchFileException(dir.toString(), null, "no such directory");
    }
    if (Files.isDirectory(file)) {
      throw new FileAlreadyExistsException(file.toString(), null, "is a directory");
    }
    Path temp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        channel.force(true);
      }
      // Set after creation: createTempFile makes the file 0600, and a umask would mask 0644.
      Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
