/**
 * Small immutable-list helpers shared by the watch's stores ({@code kube}) and the drift detector
 * ({@code drift}); depends on nothing else of routesync, so both may use it without a cycle.
 */
package dev.routesync.lists;
