package dev.routesync.client;

import picocli.CommandLine.Command;

/**
 * {@code routesync get}: a parent for {@code services}, {@code endpoints}, {@code drift}, {@code
 * status}, {@code clients} and {@code latency}. As kubectl, a resource answers to its plural, its
 * singular and its short name ({@code services}, {@code service}, {@code svc}).
 */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    description = "Show what the agent on this node serves to its sidecars.",
    subcommands = {
      GetServicesCommand.class,
      GetEndpointsCommand.class,
      GetDriftCommand.class,
      GetStatusCommand.class,
      GetClientsCommand.class,
      GetLatencyCommand.class
    })
public final class GetCommand {}
