package dev.routesync.lint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One stream of manifests: a file, or standard input.
 *
 * @param name the name messages give it: the path as the command line spelled it (a file found in a
 *     directory is the directory's argument joined with its relative path), or {@code <stdin>}
 * @param opener opens the bytes; called once
 */
record Input(String name, Opener opener) {

  /** The name standard input has in messages, as kubeconform and kube-linter write it. */
  static final String STDIN = "<stdin>";

  /**
   * A file, measured before it is opened: a regular file over {@link ReadLimits#MAX_INPUT_BYTES} is
   * refused without reading a byte of it. A pipe or a device has no size to measure; the reader
   * counts what it reads of those.
   */
  static Input file(String name, Path path) {
    return new Input(
        name,
        () -> {
          if (Files.isRegularFile(path) && Files.size(path) > ReadLimits.MAX_INPUT_BYTES) {
            throw new BoundedInputStream.TooLargeException(ReadLimits.MAX_INPUT_BYTES);
          }
          return Files.newInputStream(path);
        });
  }

  /** Opens the stream. */
  @FunctionalInterface
  interface Opener {
    InputStream open() throws IOException;
  }
}
