package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnswerSlotsTest {

  @Test
  void answersRunInTheirSlotsTheNextWaitsInLineAndPastTheLineTheyAreRefused() {
    AnswerSlots slots = new AnswerSlots(2, 1);
    List<String> ran = new ArrayList<>();
    assertThat(slots.enter(() -> ran.add("a"))).isTrue();
    assertThat(slots.enter(() -> ran.add("b"))).isTrue();
    assertThat(slots.enter(() -> ran.add("c"))).isTrue(); // waits
    assertThat(slots.enter(() -> ran.add("d"))).isFalse(); // the line is full
    assertThat(ran).containsExactly("a", "b");
    assertThat(slots.waiting()).isEqualTo(1);

    slots.leave(); // a's slot passes to c
    assertThat(ran).containsExactly("a", "b", "c");
    assertThat(slots.busy()).isEqualTo(2);
    slots.leave();
    slots.leave();
    assertThat(slots.busy()).isZero();
    assertThat(slots.enter(() -> ran.add("e"))).isTrue();
    assertThat(ran).endsWith("e");
  }
}
