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
 * @param sizeHint the size in bytes if known before reading (a regular file), else -1: it sizes the
 *     reader's buffer, and bounds nothing (the opener and the reader do)
 */
record Input(String name, Opener opener, long sizeHint) {

  /** An input of unknown size. */
  Input(String name, Opener opener) {
    this(name, opener, -1);
  }

  /** The name standard input has in messages, as kubeconform and kube-linter write it. */
  static final String STDIN = "<stdin>";

  /**
   * A file, measured before it is opened: a regular file over {@link ReadLimits#MAX_INPUT_BYTES} is
   * refused without reading a byte of it. A pipe or a device has no size to measure; the reader
   * counts what it reads of those.
   */
  static Input file(String name, Path path) {
    long size;
    try {
      size = Files.isRegularFile(path) ? Files.size(path) : -1;
    } catch (IOException e) {
      size = -1; // The opener reports it.
    }
    return new Input(
        name,
        () -> {
          if (Files.isRegularFile(path) && Files.size(path) > ReadLimits.MAX_INPUT_BYTES) {
            throw new BoundedInputStream.TooLargeException(ReadLimits.MAX_INPUT_BYTES);
          }
          return Files.newInputStream(path);
        },
        size);
  }

  /** Opens the stream. */
  @FunctionalInterface
  interface Opener {
    InputStream open() throws IOException;
  }
}
