package dev.routesync;

import dev.routesync.config.AgentConfig;
import dev.routesync.logs.LogLevels;
import dev.routesync.logs.RecentLines;
import dev.routesync.observe.Metrics;
import dev.routesync.serve.AdminServer;
import dev.routesync.serve.ConnectionGuards;
import dev.routesync.serve.DebugServer;
import dev.routesync.serve.HttpApi;
import dev.routesync.serve.ListenFailures;
import dev.routesync.serve.Readiness;
import dev.routesync.startup.BadConfigurationException;
import dev.routesync.startup.Reasons;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin and debug listeners: built when enabled, as parts of the agent, and what their failure
 * to listen means.
 */
final class ListenerParts {

  // The agent's logger: these lines are the agent's start, as they always were.
  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);

  private ListenerParts() {}

  /** The probes and metrics listener; none with --admin-port 0. */
  static Optional<AdminServer> adminServer(
      AgentConfig config,
      Vertx vertx,
      ConnectionGuards guards,
      Readiness readiness,
      AdminServer.Liveness liveness,
      PrometheusMeterRegistry registry,
      Metrics metrics) {
    if (config.adminPort() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        new AdminServer(
            vertx,
            config.adminHost(),
            config.adminPort(),
            readiness,
            liveness,
            () -> registry,
            guards,
            config.limits().forAdmin(),
            metrics.serve()));
  }

  static Optional<DebugServer> debugServer(
      AgentConfig config,
      Vertx vertx,
      ConnectionGuards guards,
      HttpApi api,
      PrometheusMeterRegistry registry,
      Metrics metrics,
      Supplier<Map<String, String>> kubeconfig) {
    if (!config.debug().enabled()) {
      return Optional.empty();
    }
    DebugServer debug =
        new DebugServer(
            vertx,
            config.debug().host(),
            config.debug().port(),
            api,
            () -> registry,
            RecentLines.installed(),
            LogLevels.ofProcess(),
            guards,
            config.limits().forAdmin(),
            metrics.serve());
    debug.describeConfiguration(config, kubeconfig.get());
    return Optional.of(debug);
  }

  /** A port that cannot be bound stops the agent: the probes need it. */
  static AgentPart admin(AdminServer admin, AgentConfig config) {
    return AgentPart.of(
        "admin listener",
        () ->
            admin
                .listen()
                .onSuccess(port -> LOG.info("admin on {}:{}", config.adminHost(), port))
                .recover(error -> Future.failedFuture(adminListenFailure(error, config)))
                .mapEmpty(),
        admin::close);
  }

  /**
   * The debug listener is an operator's aid: a port taken on the node is worth a warning, not an
   * agent that does not start.
   */
  static AgentPart debug(DebugServer debug, AgentConfig config) {
    String host = config.debug().host();
    return AgentPart.of(
        "debug listener",
        () ->
            debug
                .listen()
                .onSuccess(
                    port ->
                        LOG.info(
                            "debug listener on {}:{} (status page: http://{}:{}/status)",
                            host,
                            port,
                            host,
                            port))
                .<Void>mapEmpty()
                .recover(
                    error -> {
                      LOG.warn(
                          "debug listener not started on {}: {}; the agent runs without it",
                          ListenFailures.hostPort(host, config.debug().port()),
                          Reasons.of(error));
                      return Future.succeededFuture();
                    }),
        debug::close);
  }

  private static Throwable adminListenFailure(Throwable error, AgentConfig config) {
    if (error instanceof UnknownHostException) {
      return new BadConfigurationException(
          "--admin-host " + config.adminHost() + ": does not resolve (" + Reasons.of(error) + ")",
          error);
    }
    return ListenFailures.of(
        "admin", ListenFailures.hostPort(config.adminHost(), config.adminPort()), error);
  }
}
