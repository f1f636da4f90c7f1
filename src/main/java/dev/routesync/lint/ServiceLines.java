package dev.routesync.lint;

import io.fabric8.kubernetes.api.model.Service;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a Service's findings point, taken from its manifest while its YAML is at hand, so that the
 * YAML can be dropped and only these few numbers kept to the end of the run.
 *
 * @param file the input's name
 * @param selector the line of {@code spec.selector} (or of the nearest field that is there)
 * @param targetPorts the line of each {@code spec.ports[i].targetPort}, by port index
 */
record ServiceLines(String file, int selector, List<Integer> targetPorts) {

  ServiceLines {
    targetPorts = List.copyOf(targetPorts);
  }

  static ServiceLines of(Manifest manifest, Service service) {
    int ports =
        service.getSpec() == null || service.getSpec().getPorts() == null
            ? 0
            : service.getSpec().getPorts().size();
    List<Integer> targetPorts = new ArrayList<>(ports);
    for (int i = 0; i < ports; i++) {
      targetPorts.add(manifest.lineOf("spec", "ports", i, "targetPort"));
    }
    return new ServiceLines(manifest.file(), manifest.lineOf("spec", "selector"), targetPorts);
  }

  /** The line of port {@code index}'s targetPort. */
  int targetPort(int index) {
    return targetPorts.get(index);
  }
}
