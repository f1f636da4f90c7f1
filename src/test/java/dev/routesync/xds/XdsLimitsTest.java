package dev.routesync.xds;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The default limits follow the heap. */
class XdsLimitsTest {

  @Test
  void theImagesHeapGetsLimitsThatFitIt() {
    // Runtime.maxMemory() of -Xmx96m with SerialGC (the heap less one survivor space).
    long heap = 97_320_960;
    XdsLimits limits = XdsLimits.forHeap(heap);
    assertThat(limits.maxNamesPerStream()).isEqualTo(11_880);
    assertThat(limits.maxNamesPerPeer()).isEqualTo(11_880);
    assertThat(limits.maxNames()).isEqualTo(23_760);
    assertThat(limits.maxResponseBytes()).isEqualTo(4_055_040);
    // Names at their estimated cost, plus pending bytes, stay within half the heap.
    assertThat((long) limits.maxNames() * XdsLimits.BYTES_PER_NAME + limits.maxPendingBytes())
        .isLessThan(heap / 2);
  }

  @Test
  void aLargerHeapLetsOneUidServeManySidecars() {
    XdsLimits limits = XdsLimits.forHeap(4L << 30);
    assertThat(limits.maxNamesPerPeer()).isGreaterThan(500_000);
    assertThat(limits.maxNamesPerStream()).isEqualTo(4 * AbstractAdsStream.MAX_NAMES);
    assertThat(limits.maxResponseBytes()).isEqualTo(XdsLimits.RESPONSE_BYTES_CEILING);
  }
}
