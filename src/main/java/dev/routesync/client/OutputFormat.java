package dev.routesync.client;

import java.util.Arrays;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code -o}: the same words on every command that formats output, as kubectl's. {@code table} is
 * the default (also spelled {@code text}, the default's name on {@code lint} and {@code gate});
 * {@code wide} is a wider table where a command has one, else the table; {@code json} and {@code
 * yaml} are the agent's answer as it is; {@code name} is {@code kind/name} per line. picocli reads
 * the value in any case and lists these names when refusing another.
 */
public enum OutputFormat {
  TABLE,
  TEXT,
  WIDE,
  JSON,
  YAML,
  NAME;

  /** The help's description of {@code -o}, with the candidates picocli fills in. */
  static final String DESCRIPTION =
      "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}; text is the table; wide: get endpoints'"
          + " hints and the node's topology decision).";

  /** Every format but {@code name}, for a command whose answer names no object. */
  static final OutputFormat[] DOCUMENTS_AND_TABLES = {TABLE, TEXT, WIDE, JSON, YAML};

  /** Whether this prints a table (or text) for people rather than a document or names. */
  public boolean human() {
    return this == TABLE || this == TEXT || this == WIDE;
  }

  /** A usage error (exit code 2) unless this is one of {@code supported}. */
  OutputFormat requireOneOf(CommandSpec spec, OutputFormat... supported) {
    if (Arrays.asList(supported).contains(this)) {
      return this;
    }
    throw new ParameterException(
        spec.commandLine(),
        "-o "
            + this
            + " is not available on '"
            + spec.qualifiedName()
            + "'; expected one of "
            + Arrays.toString(supported));
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
