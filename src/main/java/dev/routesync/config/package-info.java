/**
 * The command line: flags with environment-variable twins, converted by picocli into typed values
 * (syntax only, {@code FlagConverters}) and handed to the immutable {@link
 * dev.routesync.config.AgentConfig} and its settings records, which check every value once, whether
 * it comes from a flag or from code; a bad value is one clear line and exit code 2.
 */
package dev.routesync.config;
