package dev.routesync.kube.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectReference;
import org.junit.jupiter.api.Test;

class EventSubjectTest {

  private static final ObjectReference POD = EventSubject.coreReference("Pod", "shop", "p", "u");

  @Test
  void rejectsWhatTheApiWouldRefuse() {
    assertThatThrownBy(() -> new EventSubject(" ", POD, null, "R", "A", "n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dedupKey");
    assertThatThrownBy(
            () ->
                new EventSubject(
                    "k", EventSubject.coreReference("Pod", "shop", " ", "u"), null, "R", "A", "n"))
        .hasMessageContaining("regarding.name");
    assertThatThrownBy(() -> new EventSubject("k", POD, null, "R".repeat(129), "A", "n"))
        .hasMessageContaining("128");
    assertThatThrownBy(() -> new EventSubject("k", POD, null, "R", "", "n"))
        .hasMessageContaining("action");
  }

  @Test
  void aClusterScopedObjectsEventsLiveInDefaultAsTheKubeletsDo() {
    ObjectReference node = EventSubject.coreReference("Node", null, "node-a", null);
    EventSubject subject = new EventSubject("k", node, null, "R", "A", "n");
    assertThat(EventRecorder.eventNamespace(subject.regarding())).isEqualTo("default");
    assertThat(EventRecorder.eventNamespace(POD)).isEqualTo("shop");
  }

  @Test
  void keepsItsOwnCopyOfTheReferences() {
    ObjectReference pod = EventSubject.coreReference("Pod", "shop", "p", "u");
    EventSubject subject = new EventSubject("k", pod, null, "R", "A", null);
    pod.setName("changed");
    subject.regarding().setName("changed too");
    assertThat(subject.regarding().getName()).isEqualTo("p");
    assertThat(subject.note()).isEmpty();
  }

  @Test
  void theReportingInstanceIsCutToTheApisLimit() {
    assertThat(Reporter.onNode(Reporter.DRIFT_DETECTOR, "node-a").instance())
        .isEqualTo("routesync-node-a");
    assertThat(Reporter.onNode(Reporter.DRIFT_DETECTOR, "n".repeat(253)).instance()).hasSize(128);
  }
}
