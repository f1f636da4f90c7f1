package dev.routesync.testing;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.read.ListAppender;
import ch.qos.logback.core.spi.FilterReply;
import io.grpc.netty.shaded.io.netty.bootstrap.Bootstrap;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The warning grpc-java's Netty prints for every Unix-socket channel stays out of test output. */
class DomainSocketKeepAliveWarningTest {

  private static final String BOOTSTRAP_LOGGER = "io.grpc.netty.shaded.io.netty.bootstrap";

  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void theConsoleDropsTheWarningGrpcsChannelsCause(@TempDir Path dir) throws Exception {
    Logger bootstrapLog = (Logger) LoggerFactory.getLogger(BOOTSTRAP_LOGGER);
    ListAppender<ILoggingEvent> logged = started(new ListAppender<>());
    ListAppender<ILoggingEvent> shown = started(new ListAppender<>());
    consoleAppender().getCopyOfAttachedFiltersList().forEach(shown::addFilter);
    bootstrapLog.addAppender(logged);
    bootstrapLog.addAppender(shown);
    EpollEventLoopGroup group = new EpollEventLoopGroup(1);
    try {
      // What grpc-java's NettyClientTransport does for a unix:// target (it sets the option
      // unconditionally); nothing listens on the path, so the connect fails at once.
      new Bootstrap()
          .group(group)
          .channel(EpollDomainSocketChannel.class)
          .option(ChannelOption.SO_KEEPALIVE, true)
          .handler(new ChannelInboundHandlerAdapter())
          .connect(new DomainSocketAddress(dir.resolve("nobody.sock").toString()))
          .await(5, TimeUnit.SECONDS);
    } finally {
      bootstrapLog.detachAppender(logged);
      bootstrapLog.detachAppender(shown);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    assertThat(logged.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anyMatch(message -> message.startsWith("Unknown channel option 'SO_KEEPALIVE'"));
    assertThat(shown.list).isEmpty();
  }

  @Test
  void theBootstrapsOtherWarningsStillShow() {
    DomainSocketKeepAliveWarning filter = new DomainSocketKeepAliveWarning();

    assertThat(
            filter.decide(
                event(
                    BOOTSTRAP_LOGGER + ".Bootstrap",
                    "Failed to set channel option 'SO_RCVBUF' with value '1' for channel"
                        + " '[id: 0x1]'")))
        .isEqualTo(FilterReply.NEUTRAL);
    assertThat(
            filter.decide(
                event(
                    BOOTSTRAP_LOGGER + ".Bootstrap",
                    "Unknown channel option 'SO_KEEPALIVE' for channel '[id: 0x1]' of type 'class"
                        + " io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel'")))
        .isEqualTo(FilterReply.NEUTRAL);
  }

  private static OutputStreamAppender<ILoggingEvent> consoleAppender() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    return (OutputStreamAppender<ILoggingEvent>)
        context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
  }

  private static <T extends ListAppender<ILoggingEvent>> T started(T appender) {
    appender.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
    appender.start();
    return appender;
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
