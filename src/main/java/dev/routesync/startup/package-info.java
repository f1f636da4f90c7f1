/**
 * What every stage may report at start and the runner maps to an exit code; depends on nothing else
 * of routesync, so any package may use it without a cycle.
 */
package dev.routesync.startup;
