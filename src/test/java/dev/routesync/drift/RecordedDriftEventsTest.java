package dev.routesync.drift;

import static org.assertj.core.api.Assertions.assertThat;

import dev.routesync.kube.events.EventSubject;
import dev.routesync.rules.MissingReason;
import io.fabric8.kubernetes.api.model.Service;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a drift's Event says, and which drifts are one Event. */
class RecordedDriftEventsTest {

  private final Service quote = DriftFixtures.quote("http", "1");

  {
    quote.getMetadata().setUid("svc-uid");
  }

  @Test
  void anEventRegardsThePodRelatesTheServiceAndNamesPortReasonAndDeclaredNames() {
    EventSubject subject =
        RecordedDriftEvents.subject(
            drift("uid-1", "http", MissingReason.NAMED_PORT_NOT_FOUND), quote);

    assertThat(subject.reason()).isEqualTo("PodNotInServiceEndpoints");
    assertThat(subject.regarding().getKind()).isEqualTo("Pod");
    assertThat(subject.regarding().getName()).isEqualTo("quote-new-1");
    assertThat(subject.regarding().getUid()).isEqualTo("uid-1");
    assertThat(subject.regarding().getNamespace()).isEqualTo("shop");
    assertThat(subject.related().getKind()).isEqualTo("Service");
    assertThat(subject.related().getName()).isEqualTo("quote");
    assertThat(subject.related().getUid()).isEqualTo("svc-uid");
    assertThat(subject.note())
        .contains("Service quote port http", "NamedPortNotFound", "Declared port names: http-api.");
  }

  @Test
  void oneEventPerPodUidServicePortAndReason() {
    String key = key("uid-1", "http", MissingReason.NAMED_PORT_NOT_FOUND);

    assertThat(key("uid-1", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isEqualTo(key);
    assertThat(key("uid-2", "http", MissingReason.NAMED_PORT_NOT_FOUND)).isNotEqualTo(key);
    assertThat(key("uid-1", "metrics", MissingReason.NAMED_PORT_NOT_FOUND)).isNotEqualTo(key);
    assertThat(key("uid-1", "http", MissingReason.NOT_IN_ENDPOINTS)).isNotEqualTo(key);
  }

  private String key(String uid, String port, MissingReason reason) {
    return RecordedDriftEvents.subject(drift(uid, port, reason), quote).dedupKey();
  }

  private static DriftEntry drift(String uid, String port, MissingReason reason) {
    return new DriftEntry(
        "shop",
        "quote",
        port,
        "quote-new-1",
        uid,
        reason,
        Instant.parse("2026-09-17T14:10:00Z"),
        "port http (80 -> http/TCP): no container port named http; the pod declares http-api",
        List.of("http-api"));
  }
}
