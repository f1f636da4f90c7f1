package dev.routesync.client;

import picocli.CommandLine.Command;

/** {@code routesync debug}: a parent for what reads the agent's debug listener ({@code bundle}). */
@Command(
    name = "debug",
    mixinStandardHelpOptions = true,
    description = "Read the agent's loopback debug listener (reach it with kubectl port-forward).",
    subcommands = DebugBundleCommand.class)
public final class DebugCommand {}
