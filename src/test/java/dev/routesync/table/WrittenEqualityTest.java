package dev.routesync.table;

import dev.routesync.kube.translate.ObjectTranslation;
import java.util.List;
import nl.jqno.equalsverifier.EqualsVerifier;
import nl.jqno.equalsverifier.Warning;
import org.junit.jupiter.api.Test;

/**
 * The records whose equals and hashCode are written out (for C1, see RecordEqualityBenchmark) keep
 * a record's contract: equal exactly when every component is, and equal objects hash alike.
 * EqualsVerifier changes each component in turn and checks both methods against it.
 */
class WrittenEqualityTest {

  @Test
  void port() {
    EqualsVerifier.forClass(Port.class)
        .withPrefabValuesForField("port", 80, 81)
        .withNonnullFields("name", "protocol")
        .verify();
  }

  @Test
  void endpointHints() {
    EqualsVerifier.forClass(EndpointHints.class).suppress(Warning.NULL_FIELDS).verify();
  }

  @Test
  void objectTranslation() {
    EqualsVerifier.forClass(ObjectTranslation.class)
        .suppress(Warning.NULL_FIELDS)
        .withPrefabValues(
            Endpoint.class,
            new Endpoint("10.0.0.1", List.of(), "a", "n1", "p-1", true, true, false),
            new Endpoint("10.0.0.2", List.of(), "b", "n2", "p-2", false, true, true))
        .verify();
  }
}
