package dev.routesync.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.spi.FilterReply;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Only Micrometer's re-registration warning about Vert.x's own gauges is dropped. */
class VertxGaugeReRegistrationTest {

  private static final String MICROMETER = "io.micrometer.core.instrument.MeterRegistry";

  @Test
  void dropsTheWarningForVertxGaugesOnly() {
    VertxGaugeReRegistration filter = new VertxGaugeReRegistration();
    assertThat(
            filter.decide(
                event(
                    MICROMETER,
                    "This Gauge has been already registered (MeterId{name='vertx.http.server"
                        + ".active.connections', tags=[]}), the registration will be ignored.")))
        .isEqualTo(FilterReply.DENY);
    assertThat(
            filter.decide(
                event(
                    MICROMETER,
                    "This Gauge has been already registered (MeterId{name='routesync.services',"
                        + " tags=[]}), the registration will be ignored.")))
        .isEqualTo(FilterReply.NEUTRAL);
    assertThat(filter.decide(event("io.vertx.core.Foo", "MeterId{name='vertx.x'} already")))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  @Test
  void theShippedLogbackConfigurationInstallsIt() throws Exception {
    assertThat(Files.readString(Path.of("src/main/resources/logback.xml")))
        .contains("<filter class=\"" + VertxGaugeReRegistration.class.getName() + "\"/>");
  }

  private static LoggingEvent event(String logger, String message) {
    LoggingEvent event = new LoggingEvent();
    event.setLoggerContext(new LoggerContext());
    event.setLoggerName(logger);
    event.setLevel(Level.WARN);
    event.setMessage(message);
    return event;
  }
}
