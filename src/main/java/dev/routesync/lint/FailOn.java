package dev.routesync.lint;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --fail-on}: the least severity that makes lint exit 1. */
enum FailOn {
  ERROR,
  WARNING,
  NONE;

  boolean fails(Severity severity) {
    return switch (this) {
      case ERROR -> severity == Severity.ERROR;
      case WARNING -> true;
      case NONE -> false;
    };
  }

  /** Accepts {@code error}, {@code warning} and {@code none} in any case. */
  static final class Converter implements ITypeConverter<FailOn> {
    @Override
    public FailOn convert(String value) {
      try {
        return FailOn.valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("expected error, warning or none, got '" + value + "'");
      }
    }
  }
}
