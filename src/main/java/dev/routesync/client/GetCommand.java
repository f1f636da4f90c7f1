package dev.routesync.client;

import picocli.CommandLine.Command;

/** {@code routesync get}: a parent for {@code services}, {@code endpoints} and {@code drift}. */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    description = "Show what the agent on this node serves to its sidecars.",
    subcommands = {GetServicesCommand.class, GetEndpointsCommand.class, GetDriftCommand.class})
public final class GetCommand {}
