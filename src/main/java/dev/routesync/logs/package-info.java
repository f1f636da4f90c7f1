/**
 * How the process writes its log: the format chosen at start ({@code --log-format}) and applied to
 * logback's console appenders, every line redacted of credentials wherever it is written ({@link
 * dev.routesync.logs.LogRedaction}: the console's encoder and the recent lines alike), and the
 * levels changed at run time. Knows logback and nothing of the agent.
 */
package dev.routesync.logs;
