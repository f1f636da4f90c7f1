package dev.routesync.kube;

/**
 * One skipped object or part of one.
 *
 * @param reason why
 * @param object {@code Kind namespace/name} of the object it came from
 * @param detail what exactly was wrong, for the warning a person reads
 */
public record Skip(SkipReason reason, String object, String detail) {}
