package dev.routesync.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.routesync.kube.WatchSettings;
import dev.routesync.sync.CoalescerSettings;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code with*} method of {@link AgentConfig} changes its one field and keeps every other.
 * Both the fields and the withers are found by reflection, so a field or wither added later is
 * covered without touching this test (a field of a new type only needs two samples below).
 */
class AgentConfigWithersTest {

  /**
   * Two different values for a component, neither of them a default, so a wither that rebuilds the
   * record through a constructor that fills in defaults is caught by one of them.
   */
  private static Object sample(RecordComponent component, int which) {
    String type = component.getGenericType().getTypeName();
    boolean first = which == 0;
    return switch (type) {
      case "dev.routesync.config.Source" -> first ? Source.ENDPOINTS : Source.ENDPOINTSLICES;
      case "java.util.Optional<java.nio.file.Path>" ->
          Optional.of(Path.of(first ? "/a/" : "/b/", component.getName()));
      case "java.nio.file.Path" -> Path.of(first ? "/a/" : "/b/", component.getName());
      case "dev.routesync.kube.WatchSettings" ->
          new WatchSettings(
              first ? List.of("shop") : List.of("pay", "ops"),
              first ? "team=a" : "team=b",
              Duration.ofSeconds(first ? 3 : 4),
              Duration.ofMinutes(first ? 3 : 4),
              Duration.ofMillis(first ? 300 : 400),
              Duration.ofSeconds(first ? 3 : 4),
              Duration.ofMillis(first ? 30 : 40),
              Duration.ofMinutes(first ? 7 : 8));
      case "dev.routesync.sync.CoalescerSettings" ->
          new CoalescerSettings(
              Duration.ofMillis(first ? 7 : 8), Duration.ofMillis(first ? 70 : 80), first ? 7 : 8);
      case "dev.routesync.serve.ConnectionLimits" ->
          new dev.routesync.serve.ConnectionLimits(
              first ? 11 : 22,
              Duration.ofSeconds(first ? 2 : 3),
              Duration.ofMinutes(first ? 2 : 3));
      case "dev.routesync.state.StateSettings" ->
          new dev.routesync.state.StateSettings(
              Optional.of(Path.of(first ? "/a/state.bin" : "/b/state.bin")),
              Duration.ofMillis(first ? 700 : 800));
      case "dev.routesync.serve.PeerPolicy" ->
          dev.routesync.serve.PeerPolicy.of(
              first ? List.of(1000) : List.of(2000, 2001), first ? List.of() : List.of(3000));
      case "dev.routesync.config.DebugListener" ->
          new DebugListener(first ? "127.0.0.1" : "::1", first ? 9902 : 9903);
      case "dev.routesync.drift.DriftSettings" ->
          new dev.routesync.drift.DriftSettings(!first, Duration.ofSeconds(first ? 5 : 6));
      // Lower case: the node name must be a DNS subdomain.
      case "java.lang.String" ->
          (first ? "a-" : "b-") + component.getName().toLowerCase(java.util.Locale.ROOT);
      case "int" -> first ? 1234 : 4321;
      case "boolean" -> first; // the record's defaults hold both values somewhere
      case "java.time.Duration" -> Duration.ofSeconds(first ? 7 : 13);
      case "java.util.Optional<java.lang.String>" -> Optional.of(first ? "zone-a" : "zone-b");
      case "java.util.Optional<java.net.InetSocketAddress>" ->
          Optional.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), first ? 1111 : 2222));
      default ->
          fail("add two sample values of " + type + " for AgentConfig." + component.getName());
    };
  }

  private static AgentConfig build(int which) throws Exception {
    RecordComponent[] components = AgentConfig.class.getRecordComponents();
    Class<?>[] types =
        Arrays.stream(components).map(RecordComponent::getType).toArray(Class[]::new);
    Constructor<AgentConfig> canonical = AgentConfig.class.getDeclaredConstructor(types);
    Object[] values = Arrays.stream(components).map(c -> sample(c, which)).toArray();
    return canonical.newInstance(values);
  }

  static List<Method> withers() {
    return Arrays.stream(AgentConfig.class.getDeclaredMethods())
        .filter(m -> m.getName().startsWith("with") && Modifier.isPublic(m.getModifiers()))
        .filter(m -> m.getReturnType() == AgentConfig.class && m.getParameterCount() == 1)
        .toList();
  }

  static Stream<Arguments> withersAndSamples() {
    return withers().stream().flatMap(w -> Stream.of(Arguments.of(w, 0), Arguments.of(w, 1)));
  }

  @Test
  void theWithersAreFound() {
    assertThat(withers())
        .extracting(Method::getName)
        .contains(
            "withSocket",
            "withKubeconfig",
            "withDrift",
            "withNodeName",
            "withState",
            "withPeers",
            "withWatch");
  }

  @ParameterizedTest(name = "{0} on sample {1}")
  @MethodSource("withersAndSamples")
  void everyOtherFieldSurvivesTheWither(Method wither, int which) throws Exception {
    AgentConfig base = build(which);
    RecordComponent target = targetOf(wither);
    Object argument = unwrapped(sample(target, 1 - which));

    AgentConfig changed = (AgentConfig) wither.invoke(base, argument);

    SoftAssertions softly = new SoftAssertions();
    for (RecordComponent component : AgentConfig.class.getRecordComponents()) {
      Object after = component.getAccessor().invoke(changed);
      if (component.getName().equals(target.getName())) {
        softly.assertThat(after).as(component.getName()).isEqualTo(sample(target, 1 - which));
      } else {
        softly
            .assertThat(after)
            .as(wither.getName() + " keeps " + component.getName())
            .isEqualTo(component.getAccessor().invoke(base));
      }
    }
    softly.assertAll();
  }

  // withKubeconfig(Path) sets the Optional<Path> kubeconfig: the wither takes the bare value.
  private static Object unwrapped(Object value) {
    return value instanceof Optional<?> optional ? optional.orElseThrow() : value;
  }

  private static RecordComponent targetOf(Method wither) {
    String name = Character.toLowerCase(wither.getName().charAt(4)) + wither.getName().substring(5);
    return Arrays.stream(AgentConfig.class.getRecordComponents())
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseGet(() -> fail(wither.getName() + " names no field of AgentConfig"));
  }
}
