package dev.routesync.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class KubeVersionTest {

  @ParameterizedTest
  @CsvSource({"1.32,1,32", "v1.31.4,1,31", "1.30+,1,30", "v1.33.1-gke.100,1,33", " 1.29 ,1,29"})
  void parsesTheFormsClustersReport(String text, int major, int minor) {
    assertThat(KubeVersion.parse(text)).isEqualTo(new KubeVersion(major, minor));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1", "latest", "1.x", "v", "x1.32"})
  void rejectsOtherText(String text) {
    assertThatThrownBy(() -> KubeVersion.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(text);
  }

  @Test
  void sidecarPortsAreSearchedFrom132() {
    assertThat(KubeVersion.parse("1.31").portSearch()).isEqualTo(PortSearch.CONTAINERS);
    assertThat(KubeVersion.parse("1.32").portSearch())
        .isEqualTo(PortSearch.CONTAINERS_AND_SIDECARS);
    assertThat(KubeVersion.parse("2.0").portSearch()).isEqualTo(PortSearch.CONTAINERS_AND_SIDECARS);
  }
}
