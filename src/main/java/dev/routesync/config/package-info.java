/**
 * The command line: flags with environment-variable twins, validated into an immutable {@link
 * dev.routesync.config.AgentConfig}; a bad value is one clear line and exit code 2.
 */
package dev.routesync.config;
