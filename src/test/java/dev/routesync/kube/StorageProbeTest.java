package dev.routesync.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.kube.StorageProbe.Verdict;
import org.junit.jupiter.api.Test;

/** Reading kube-apiserver's {@code /readyz?verbose}: only its etcd checks speak of storage. */
class StorageProbeTest {

  @Test
  void aFailedEtcdCheckMeansUnreachable() {
    assertThat(
            StorageProbe.verdict(
                "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\n"
                    + "readyz check failed\n"))
        .isEqualTo(Verdict.UNREACHABLE);
    // Newer servers check readiness apart; either one failing is enough.
    assertThat(StorageProbe.verdict("[+]etcd ok\n[-]etcd-readiness failed: reason withheld\n"))
        .isEqualTo(Verdict.UNREACHABLE);
  }

  @Test
  void passingEtcdChecksMeanReachableWhateverElseFails() {
    assertThat(
            StorageProbe.verdict(
                "[+]ping ok\n[+]etcd ok\n[+]etcd-readiness ok\n"
                    + "[-]poststarthook/start-service-ip-repair-controllers failed: reason withheld\n"
                    + "readyz check failed\n"))
        .isEqualTo(Verdict.REACHABLE);
  }

  @Test
  void anAnswerThatNamesNoEtcdCheckSaysNothing() {
    assertThat(StorageProbe.verdict("ok")).isEqualTo(Verdict.UNKNOWN);
    assertThat(StorageProbe.verdict("404 page not found\n")).isEqualTo(Verdict.UNKNOWN);
    assertThat(StorageProbe.verdict("")).isEqualTo(Verdict.UNKNOWN);
    assertThat(StorageProbe.verdict(null)).isEqualTo(Verdict.UNKNOWN);
  }
}
