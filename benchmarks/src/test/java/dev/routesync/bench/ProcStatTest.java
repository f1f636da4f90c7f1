package dev.routesync.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcStatTest {

  @Test
  void aLiveProcessHasResidentMemoryNoMoreThanItsPeak() throws Exception {
    ProcStat.Memory memory = ProcStat.memory(ProcessHandle.current().pid());

    assertThat(memory.rssKiB()).isPositive();
    assertThat(memory.peakRssKiB()).isGreaterThanOrEqualTo(memory.rssKiB());
  }

  @Test
  void threadNamesGroupWithoutTheirTrailingNumber() {
    assertThat(ProcStat.group("GC Thread#1")).isEqualTo("GC Thread");
    assertThat(ProcStat.group("C2 CompilerThre")).isEqualTo("C2 CompilerThre");
  }
}
