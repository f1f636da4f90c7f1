package dev.routesync.lint;

import java.io.IOException;
import java.io.InputStream;

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

  /** Opens the stream. */
  @FunctionalInterface
  interface Opener {
    InputStream open() throws IOException;
  }
}
