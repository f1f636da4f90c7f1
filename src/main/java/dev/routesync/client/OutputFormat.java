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

  /** Accepts {@code table}, {@code wide} and {@code json} in any case. */
  static final class Converter implements ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      try {
        return OutputFormat.valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("expected table, wide or json, got '" + value + "'");
      }
    }
  }
}
