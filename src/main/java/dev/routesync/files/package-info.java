/**
 * Who may have written a file the agent trusts: the ownership and mode rules shared by the socket's
 * lock file and directory and by the state file. A leaf: it depends on nothing else of routesync,
 * so serve/ and state/ both use it without a cycle.
 */
package dev.routesync.files;
