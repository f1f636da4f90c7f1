package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.api.v1.ListRequest;
import dev.routesync.testing.RawConnection;
import dev.routesync.testing.RawH2;
import dev.routesync.testing.ServeHarness;
import io.netty.handler.codec.http2.Http2FrameTypes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The socket's calls ({@code --max-streams}) are shared out per uid as its connections are: one uid
 * holding calls open cannot take the last quarter, and a call over its share gets
 * RESOURCE_EXHAUSTED (then a reset), while another uid's call is answered.
 */
@Timeout(60)
class StreamShareTest {

  private static final Duration LONG = Duration.ofSeconds(30);
  private static final int MAX_STREAMS = 8; // one uid: at most 6, the last 2 for others
  private static final ConnectionLimits LIMITS =
      new ConnectionLimits(16, LONG, LONG, LONG, MAX_STREAMS);

  private final AtomicInteger nextUid = new AtomicInteger();

  @Test
  void callsOverAUidsShareGetResourceExhaustedWhileAnotherUidsCallIsAnswered() throws Exception {
    try (ServeHarness serve =
            new ServeHarness(
                LIMITS,
                ConnectionGuards.withCredentials(
                    channel -> new Peer(1, nextUid.get(), nextUid.get())));
        RawConnection holder = connectAs(serve, 1000)) {
      String received =
          holder
              .write(RawH2.headersWithoutBody("List", MAX_STREAMS))
              .readUntil(bytes -> resets(bytes) == 2, Duration.ofSeconds(5));
      List<RawH2.Frame> frames = RawH2.frames(received);
      // The first six calls are held (their messages never come); the last two are refused.
      for (int stream : new int[] {13, 15}) {
        RawH2.Frame answer =
            frames.stream()
                .filter(f -> f.is(Http2FrameTypes.HEADERS, stream))
                .findFirst()
                .orElseThrow();
        assertThat(answer.headers()).containsEntry("grpc-status", "8");
        assertThat(answer.headers().get("grpc-message")).contains("uid 1000", "--max-streams 8");
      }
      assertThat(frames).noneMatch(f -> f.stream() >= 1 && f.stream() <= 11);

      try (RawConnection other = connectAs(serve, 2000)) {
        String answer =
            other
                .write(RawH2.unary("List", "localhost", ListRequest.getDefaultInstance()))
                .readUntil(
                    bytes ->
                        RawH2.frames(bytes).stream()
                            .anyMatch(f -> f.is(Http2FrameTypes.HEADERS, 1) && f.endStream()),
                    Duration.ofSeconds(5));
        assertThat(
                RawH2.frames(answer).stream()
                    .filter(f -> f.is(Http2FrameTypes.HEADERS, 1) && f.endStream())
                    .findFirst()
                    .orElseThrow()
                    .headers())
            .containsEntry("grpc-status", "0");
      }
      assertThat(serve.counter("routesync.socket.refused", "uid", "1000", "reason", "stream_share"))
          .isEqualTo(2);
    }
  }

  private RawConnection connectAs(ServeHarness serve, int uid) throws Exception {
    nextUid.set(uid);
    RawConnection connection = RawConnection.unix(serve.socket());
    // Accepted before the uid changes again: the agent has answered the HTTP/2 preface's SETTINGS
    // by the time the first call's bytes are back, so nothing else needs waiting for.
    return connection;
  }

  private static long resets(String bytes) {
    return RawH2.frames(bytes).stream().filter(f -> f.type() == Http2FrameTypes.RST_STREAM).count();
  }
}
