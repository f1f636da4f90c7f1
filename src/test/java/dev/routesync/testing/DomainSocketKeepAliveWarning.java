package dev.routesync.testing;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Drops the warning grpc-java's shaded Netty logs for every client and server channel on a Unix
 * socket: grpc's {@code NettyClientTransport} and {@code NettyServer} set {@code SO_KEEPALIVE}
 * unconditionally ("for non-socket based channel, the option will be ignored"), and Netty warns
 * that a domain socket has no such option. Nothing of ours sets it and no grpc builder turns it
 * off; the agent itself never uses grpc-java, so this is test-only noise. Every other warning of
 * the same loggers (a failed option, a failed registration) still shows. Installed in {@code
 * logback-test.xml}.
 */
public final class DomainSocketKeepAliveWarning extends Filter<ILoggingEvent> {

  private static final String SHADED_BOOTSTRAP = "io.grpc.netty.shaded.io.netty.bootstrap.";

  @Override
  public FilterReply decide(ILoggingEvent event) {
    String message = event.getFormattedMessage();
    return event.getLoggerName().startsWith(SHADED_BOOTSTRAP)
            && message.startsWith("Unknown channel option 'SO_KEEPALIVE'")
            && message.contains("DomainSocketChannel")
        ? FilterReply.DENY
        : FilterReply.NEUTRAL;
  }
}
