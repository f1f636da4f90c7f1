/**
 * The persisted table: after a publish the agent writes its table to a file, at most once per
 * {@code --state-flush}, and loads it at start, before the first list, so a restarted agent serves
 * its last known table at once (flagged stale) instead of nothing. Beside the flow: it reads
 * published tables and hands the agent a table to start from; it knows nothing of Kubernetes.
 */
package dev.routesync.state;
