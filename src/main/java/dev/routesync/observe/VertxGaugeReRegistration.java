package dev.routesync.observe;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Drops Micrometer's "This Gauge has been already registered" for Vert.x's own gauges, and only
 * those. vertx-micrometer-metrics 5.0.7 registers its gauges again for every client it creates and
 * every connection and request it sees (they share one counter per meter id, by design), and
 * Micrometer 1.15 warns at the first such registration: one spurious WARN per process, at the
 * second connection to any listener (at start, before fabric8's clients were named). A duplicate of
 * one of our own meters would be a bug, and still shows. Installed in {@code logback.xml}.
 */
public final class VertxGaugeReRegistration extends Filter<ILoggingEvent> {

  @Override
  public FilterReply decide(ILoggingEvent event) {
    return event.getLoggerName().equals("io.micrometer.core.instrument.MeterRegistry")
            && event.getFormattedMessage().startsWith("This Gauge has been already registered")
            && event.getFormattedMessage().contains("MeterId{name='vertx.")
        ? FilterReply.DENY
        : FilterReply.NEUTRAL;
  }
}
