package dev.routesync.logs;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * An encoder around another ({@code logback.xml}'s pattern, {@link ConsoleFormat}'s JSON) that
 * writes what it encodes with {@link LogRedaction}: the whole encoded line, so the message, its
 * key-value pairs and an exception's message and causes are redacted alike, whatever the format.
 *
 * <pre>{@code
 * <encoder class="dev.routesync.logs.RedactingEncoder">
 *   <encoder class="ch.qos.logback.classic.encoder.PatternLayoutEncoder">...</encoder>
 * </encoder>
 * }</pre>
 */
public final class RedactingEncoder extends ContextAwareBase implements Encoder<ILoggingEvent> {

  private Encoder<ILoggingEvent> encoder;
  private volatile boolean started;

  /** For {@code logback.xml}: the encoder is its nested {@code <encoder>}. */
  public RedactingEncoder() {}

  /** Redacts what {@code encoder} writes. */
  public static RedactingEncoder around(Encoder<ILoggingEvent> encoder) {
    RedactingEncoder redacting = new RedactingEncoder();
    redacting.setContext(encoder.getContext());
    redacting.setEncoder(encoder);
    return redacting;
  }

  public void setEncoder(Encoder<ILoggingEvent> encoder) {
    this.encoder = encoder;
  }

  public Encoder<ILoggingEvent> getEncoder() {
    return encoder;
  }

  @Override
  public byte[] headerBytes() {
    return redacted(encoder.headerBytes());
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return redacted(encoder.encode(event));
  }

  @Override
  public byte[] footerBytes() {
    return redacted(encoder.footerBytes());
  }

  @Override
  public void start() {
    if (encoder == null) {
      addError("no <encoder> inside the redacting encoder: nothing would be written");
      return;
    }
    if (!encoder.isStarted()) {
      encoder.start();
    }
    started = true;
  }

  @Override
  public void stop() {
    started = false;
    if (encoder != null) {
      encoder.stop();
    }
  }

  @Override
  public boolean isStarted() {
    return started;
  }

  private byte[] redacted(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return bytes;
    }
    Charset charset = charset();
    String text = new String(bytes, charset);
    String redacted = LogRedaction.redact(text);
    // Most lines hold nothing to redact: they are written as the encoder made them.
    return redacted == text ? bytes : redacted.getBytes(charset);
  }

  // The charset the wrapped encoder wrote in: a pattern encoder's own (the platform's when unset),
  // and UTF-8 for logback's JSON encoder, which always writes it.
  private Charset charset() {
    if (encoder instanceof LayoutWrappingEncoder<ILoggingEvent> layout) {
      return layout.getCharset() == null ? Charset.defaultCharset() : layout.getCharset();
    }
    return StandardCharsets.UTF_8;
  }
}
