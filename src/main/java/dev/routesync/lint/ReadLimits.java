package dev.routesync.lint;

/**
 * What one run of lint may read, so that a hostile or broken input costs a bounded amount of memory
 * and time. Every limit passed is exit 2 with one line naming the file, the line where there is
 * one, and the limit. The numbers leave room for anything the API server would store: etcd takes an
 * object of at most 1.5 MiB, and a node takes at least two bytes of JSON.
 */
final class ReadLimits {

  /**
   * Bytes of one input. A file is measured before it is opened; standard input and pipes are
   * counted while they are read.
   */
  static final long MAX_INPUT_BYTES = 64L * 1024 * 1024;

  /** Code points of one YAML document (snakeyaml-engine's own limit). */
  static final int MAX_DOCUMENT_CODE_POINTS = 10 * 1024 * 1024;

  /**
   * Nodes (scalars, sequences, mappings, aliases) of one document, counted as the parser reads
   * them, before anything is built. 1.5 MiB of JSON holds at most about 786,000.
   */
  static final int MAX_DOCUMENT_NODES = 1_000_000;

  /** Nodes of one input, over all its documents. */
  static final int MAX_INPUT_NODES = 4_000_000;

  /**
   * Nodes of the objects lint keeps to the end of the run (Services and workloads), over all
   * inputs: a Service is paired with workloads from any file, so these cannot be dropped early.
   * Documents of other kinds are never built past their top-level keys, and count for nothing here.
   */
  static final int MAX_LINTED_NODES = 4_000_000;

  /** Characters of the strings in the objects lint keeps to the end of the run, over all inputs. */
  static final long MAX_LINTED_CHARS = 64L * 1024 * 1024;

  private ReadLimits() {}
}
