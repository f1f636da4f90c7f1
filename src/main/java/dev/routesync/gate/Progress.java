package dev.routesync.gate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The progress lines of a run: one per Service port whose state changed since the last evaluation,
 * not one per watch event. A rollout's hundreds of pod updates become a line each time a count or a
 * missing pod's reason changes.
 */
final class Progress {

  /** Missing pods named on one line; the rest are counted. */
  static final int NAMED_PODS = 5;

  private final Map<String, String> lastByKey = new HashMap<>();

  /** The lines that differ from the last evaluation's, in Service and port order. */
  List<String> changes(Evaluation evaluation) {
    List<String> lines = new ArrayList<>();
    for (ServiceResult service : evaluation.services()) {
      String serviceKey = service.namespace() + "/" + service.name();
      if (service.skipped().isPresent()) {
        emit(lines, serviceKey, serviceKey + ": not checked: " + service.skipped().get());
        continue;
      }
      for (PortResult port : service.ports()) {
        emit(lines, serviceKey + " " + port.name(), serviceKey + " " + line(port));
      }
    }
    return lines;
  }

  private void emit(List<String> lines, String key, String line) {
    if (!Objects.equals(lastByKey.put(key, line), line)) {
      lines.add(line);
    }
  }

  /** {@code port http (80 -> http/TCP): 10 expected, 8 ready, 2 missing: a NamedPortNotFound}. */
  static String line(PortResult port) {
    String counts =
        port.description()
            + ": "
            + port.expected()
            + " expected, "
            + port.ready()
            + " ready, "
            + port.missing().size()
            + " missing";
    if (port.missing().isEmpty()) {
      return counts;
    }
    String named =
        port.missing().stream()
            .limit(NAMED_PODS)
            .map(m -> m.pod() + " " + m.missing().reason().label())
            .collect(Collectors.joining(", "));
    int more = port.missing().size() - NAMED_PODS;
    return counts + ": " + named + (more > 0 ? " and " + more + " more" : "");
  }

  /** {@code 0.3s}, {@code 12.0s}: how far into the run. */
  static String elapsed(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.1fs", nanos / 1e9);
  }
}
