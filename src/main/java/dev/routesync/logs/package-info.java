/**
 * How the process writes its log: the format chosen at start ({@code --log-format}) and applied to
 * logback's console appenders. Knows logback and nothing of the agent.
 */
package dev.routesync.logs;
