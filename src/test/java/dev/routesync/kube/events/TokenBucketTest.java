package dev.routesync.kube.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

  private static final long TEN_SECONDS = TimeUnit.SECONDS.toNanos(10);

  @Test
  void startsFullThenRefillsOneTokenPerPeriod() {
    TokenBucket bucket = new TokenBucket(3, TEN_SECONDS, 0);
    assertThat(takes(bucket, 0, 10)).isEqualTo(3);
    assertThat(takes(bucket, TEN_SECONDS - 1, 10)).isZero();
    assertThat(takes(bucket, TEN_SECONDS, 10)).isEqualTo(1);
    assertThat(takes(bucket, 2 * TEN_SECONDS + TEN_SECONDS / 2, 10)).isEqualTo(1);
    // The half period left over still counts.
    assertThat(takes(bucket, 3 * TEN_SECONDS, 10)).isEqualTo(1);
  }

  @Test
  void neverHoldsMoreThanItsCapacity() {
    TokenBucket bucket = new TokenBucket(3, TEN_SECONDS, 0);
    takes(bucket, 0, 3);
    assertThat(takes(bucket, 1000 * TEN_SECONDS, 10)).isEqualTo(3);
    // Time spent full earned nothing: the next token is a full period after the refill.
    assertThat(takes(bucket, 1000 * TEN_SECONDS + TEN_SECONDS - 1, 10)).isZero();
    assertThat(takes(bucket, 1001 * TEN_SECONDS, 10)).isEqualTo(1);
  }

  @Test
  void worksAtAnyStartingTime() {
    long start = Long.MAX_VALUE - 5 * TEN_SECONDS;
    TokenBucket bucket = new TokenBucket(1, TEN_SECONDS, start);
    assertThat(takes(bucket, start, 5)).isEqualTo(1);
    assertThat(takes(bucket, start + 2 * TEN_SECONDS, 5)).isEqualTo(1);
  }

  private static int takes(TokenBucket bucket, long now, int tries) {
    int taken = 0;
    for (int i = 0; i < tries; i++) {
      if (bucket.tryTake(now)) {
        taken++;
      }
    }
    return taken;
  }
}
