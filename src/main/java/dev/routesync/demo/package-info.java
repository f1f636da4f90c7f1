/**
 * {@code routesync demo}: fabric8's mock API server in-process with churning demo Services, so the
 * agent can be tried without a cluster.
 */
package dev.routesync.demo;
