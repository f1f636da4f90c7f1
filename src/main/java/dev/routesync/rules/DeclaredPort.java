package dev.routesync.rules;

/**
 * A port a pod declares, in the order {@code FindPort} searches them.
 *
 * @param container the declaring container's name
 * @param sidecar declared by an init container with {@code restartPolicy: Always}
 * @param name the port's name, {@code ""} when it has none
 * @param number {@code containerPort}
 * @param protocol {@code TCP} when the manifest omits it
 */
public record DeclaredPort(
    String container, boolean sidecar, String name, int number, String protocol) {}
