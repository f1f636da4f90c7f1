/**
 * The duration syntax of flags, messages and logs ({@code 250ms}, {@code 10s}, {@code 5m}); depends
 * on nothing else of routesync, so the settings records of every package may parse their defaults
 * and name their ranges with it without a cycle.
 */
package dev.routesync.units;
