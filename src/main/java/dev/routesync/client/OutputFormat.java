package dev.routesync.client;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code -o table} (aligned columns, the default), {@code -o wide} (more columns where a command
 * has them, else the table) or {@code -o json}.
 */
public enum OutputFormat {
  TABLE,
  WIDE,
  JSON;

  /** Accepts {@code table} (or {@code text}), {@code wide} and {@code json} in any case. */
  static final class Converter implements ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      try {
        String name = value.trim().toUpperCase(Locale.ROOT);
        // text: the default's name on lint and gate, so that -o text works everywhere.
        return OutputFormat.valueOf(name.equals("TEXT") ? "TABLE" : name);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            "expected table (or text), wide or json, got '" + value + "'");
      }
    }
  }
}
