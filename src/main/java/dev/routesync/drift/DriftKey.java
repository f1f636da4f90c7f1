package dev.routesync.drift;

/**
 * A drift's identity: one pod of this node ({@code "namespace/name"}), one port of one Service
 * selecting it (the port's name, empty for an unnamed port). A pod drifts at most once per Service
 * port, whatever the reason.
 */
record DriftKey(ServiceRef service, String port, String pod) {}
