package dev.routesync.gate;

import java.util.ArrayList;
import java.util.List;

/**
 * The verdict for people ({@code -o text}): the summary line, then each Service port's counts, then
 * each missing pod with its reason and the rules' message.
 */
final class VerdictText {

  private VerdictText() {}

  static String render(Verdict verdict) {
    List<String> lines = new ArrayList<>();
    lines.add(verdict.summary());
    verdict
        .evaluation()
        .ifPresent(
            evaluation -> {
              for (ServiceResult service : evaluation.services()) {
                String key = service.namespace() + "/" + service.name();
                if (service.skipped().isPresent()) {
                  lines.add("  " + key + ": not checked: " + service.skipped().get());
                  continue;
                }
                for (PortResult port : service.ports()) {
                  lines.add(
                      "  "
                          + key
                          + " "
                          + port.description()
                          + ": "
                          + port.expected()
                          + " expected, "
                          + port.ready()
                          + " ready, "
                          + port.missing().size()
                          + " missing");
                  for (MissingPod pod : port.missing()) {
                    lines.add(
                        "    "
                            + pod.pod()
                            + " "
                            + pod.missing().reason().label()
                            + ": "
                            + pod.missing().message());
                  }
                }
              }
            });
    return String.join("\n", lines) + "\n";
  }
}
