package dev.routesync.lint;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Turns the command line's {@code PATH|-} arguments into the inputs to read, in a fixed order: the
 * arguments as given, each directory's manifest files sorted by path, so that a CI run prints its
 * findings in the same order on every machine.
 */
final class Inputs {

  /** Whether a file found in a directory is a manifest (files named explicitly always are). */
  private static final List<String> EXTENSIONS = List.of(".yaml", ".yml", ".json");

  private Inputs() {}

  /**
   * The inputs of {@code arguments}; no argument means standard input.
   *
   * @throws LintInputException for a path that does not exist or cannot be listed, and for a
   *     directory without manifest files (a lint that checked nothing must not pass)
   */
  static List<Input> of(List<String> arguments, Supplier<InputStream> stdin)
      throws LintInputException {
    if (arguments.isEmpty()) {
      return List.of(stdinInput(stdin));
    }
    List<Input> inputs = new ArrayList<>();
    for (String argument : arguments) {
      if (argument.equals("-")) {
        inputs.add(stdinInput(stdin));
      } else {
        addPath(argument, inputs);
      }
    }
    return inputs;
  }

  private static Input stdinInput(Supplier<InputStream> stdin) {
    // Not closed afterwards: System.in belongs to the process.
    return new Input(Input.STDIN, () -> new NonClosingInputStream(stdin.get()));
  }

  private static void addPath(String argument, List<Input> inputs) throws LintInputException {
    Path path = Path.of(argument);
    if (!Files.exists(path)) {
      throw new LintInputException(argument, 0, "no such file or directory");
    }
    if (!Files.isDirectory(path)) {
      inputs.add(Input.file(argument, path));
      return;
    }
    List<Path> files = manifestFiles(argument, path);
    if (files.isEmpty()) {
      throw new LintInputException(argument, 0, "no *.yaml, *.yml or *.json files");
    }
    for (Path file : files) {
      String name = join(argument, path.relativize(file));
      inputs.add(Input.file(name, file));
    }
  }

  private static List<Path> manifestFiles(String argument, Path directory)
      throws LintInputException {
    try (Stream<Path> walk = Files.walk(directory)) {
      return walk.filter(Files::isRegularFile)
          .filter(Inputs::isManifestFile)
          .sorted((a, b) -> directory.relativize(a).compareTo(directory.relativize(b)))
          .toList();
    } catch (IOException e) {
      throw listingFailed(argument, e);
    } catch (UncheckedIOException e) {
      // Files.walk reports a subdirectory it cannot read while the stream runs.
      throw listingFailed(argument, e.getCause());
    }
  }

  private static LintInputException listingFailed(String argument, IOException e) {
    if (e instanceof AccessDeniedException denied) {
      return new LintInputException(denied.getFile(), 0, "permission denied");
    }
    return new LintInputException(argument, 0, "cannot list the directory: " + e.getMessage());
  }

  private static boolean isManifestFile(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return EXTENSIONS.stream().anyMatch(name::endsWith);
  }

  // "manifests" + "a/b.yaml" -> "manifests/a/b.yaml", "manifests/" + ... without a double slash.
  private static String join(String argument, Path relative) {
    String tail = relative.toString().replace('\\', '/');
    return argument.endsWith("/") ? argument + tail : argument + "/" + tail;
  }

  /** Standard input, left open when the reader is closed. */
  private static final class NonClosingInputStream extends java.io.FilterInputStream {
    NonClosingInputStream(InputStream in) {
      super(in);
    }

    @Override
    public void close() {}
  }
}
