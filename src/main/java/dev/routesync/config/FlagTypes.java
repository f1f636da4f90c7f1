package dev.routesync.config;

import dev.routesync.units.Durations;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value types every command's flags share, registered once on a command line and its
 * subcommands: durations with units ({@code 0}, {@code 250ms}, {@code 10s}, {@code 5m}, {@code
 * 1h}), and enums in any case ({@code -o JSON} is {@code -o json}). A bad enum value is refused
 * with picocli's message, which lists the valid ones.
 */
public final class FlagTypes {

  private FlagTypes() {}

  /**
   * Registers the shared types on {@code commandLine} and on the subcommands it has now (picocli
   * applies both to the subcommands present when they are set).
   */
  public static CommandLine register(CommandLine commandLine) {
    commandLine.registerConverter(Duration.class, new DurationConverter());
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    return commandLine;
  }

  /** The agent's duration syntax; picocli's own converter would want ISO-8601 ({@code PT10S}). */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String text) {
      try {
        return Durations.parse(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
