package dev.routesync.kube;

import dev.routesync.kube.translate.ExternalNames;
import dev.routesync.kube.translate.Skip;
import dev.routesync.kube.translate.SkipReason;
import dev.routesync.kube.watch.Generation;
import dev.routesync.kube.watch.ResourceSpec;
import dev.routesync.rules.CompactServices;
import dev.routesync.table.Port;
import dev.routesync.table.ServiceKey;
import dev.routesync.table.ServiceTraffic;
import dev.routesync.table.TableLimits;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The Services watch, the table's second input: the ports each Service declares, read from the
 * served {@link Generation} of Services ({@link ServicePortsSink} swaps each new one in). Without
 * them the table cannot tell a ready endpoint that serves a port from one listed in a {@code ports:
 * null} slice because its pod resolves none of the Service's ports.
 *
 * <p>The watch has the slice watch's namespaces and label selector: the EndpointSlice controller
 * copies a Service's labels to its slices, so one selector selects both.
 *
 * <p>Its informers keep each Service compact ({@link ServiceStore}): the identity, selector, type,
 * publishNotReadyAddresses, ports, traffic settings and ipFamilies, which is all this class and the
 * drift detector (the watch's second consumer) read; its events carry the same compact instances.
 *
 * <p>Threading: read and swapped on the sync context.
 */
public final class ServicePorts implements ServiceSkips {

  /**
   * Services per page of the list and of every relist, as client-go's informers page: at 40,000
   * Services one unpaged list is tens of MB the API server builds (and the agent decodes) at once,
   * and it outlasted the request timeout against the mock, so a relist never completed. A Service
   * is small, so its pages are larger than the endpoint kinds' ({@link WatchedKind#LIST_PAGE}).
   */
  static final long LIST_PAGE = 500;

  /** The resource kind, as a metric label and in logs. */
  public static final String KIND = "Service";

  /** {@code spec.type} of a Service that is a DNS alias. */
  static final String EXTERNAL_NAME = "ExternalName";

  private volatile Generation<Service> current;

  /**
   * The watch of Services in the configured namespaces, filtered by the label selector on the API
   * server, each Service kept compact in a {@link ServiceStore} keyed by {@code namespace/name}.
   * {@code ports} holds the served generation: a relist keeps the served instance of every Service
   * whose compact form is unchanged.
   */
  public static ResourceSpec<Service> spec(
      KubernetesClient client, WatchSettings settings, ServicePorts ports) {
    Function<String, Service> served = ports::served;
    return new ResourceSpec<>(
        KIND,
        settings.namespaces(),
        namespace -> {
          var services = client.services();
          var scoped =
              namespace == null ? services.inAnyNamespace() : services.inNamespace(namespace);
          return scoped
              .withLabelSelector(settings.labelSelector())
              .withLimit(LIST_PAGE)
              .runnableInformer(0);
        },
        // The store is the index by key: fabric8's indexes would cost an entry per Service.
        Map.of(),
        namespace -> new ServiceStore(served));
  }

  /**
   * The ports the Service declares, sorted by name; empty when the Service is not in the served
   * cache (or no generation has synced yet) or declares none.
   */
  public List<Port> portsOf(ServiceKey key) {
    Generation<Service> generation = current;
    ItemStore<Service> store = generation == null ? null : generation.itemStore(key.namespace());
    Service service = store == null ? null : store.get(key.toString());
    return service == null ? List.of() : portsOf(service);
  }

  /**
   * The Service's trafficDistribution, internalTrafficPolicy and first IP family; {@link
   * ServiceTraffic#DEFAULT} when the Service is not in the served cache.
   */
  public ServiceTraffic trafficOf(ServiceKey key) {
    Generation<Service> generation = current;
    ItemStore<Service> store = generation == null ? null : generation.itemStore(key.namespace());
    Service service = store == null ? null : store.get(key.toString());
    return service == null ? ServiceTraffic.DEFAULT : trafficOf(service);
  }

  /** The Service's traffic settings as the table keeps them. */
  static ServiceTraffic trafficOf(Service service) {
    var spec = service.getSpec();
    if (spec == null) {
      return ServiceTraffic.DEFAULT;
    }
    String distribution = spec.getTrafficDistribution();
    List<String> families = spec.getIpFamilies();
    // The API server always sets ipFamilies, primary first; without it (a hand-made object, the
    // mock) IPv4 comes first.
    boolean ipv6Primary = families != null && !families.isEmpty() && "IPv6".equals(families.get(0));
    return ServiceTraffic.of(
        distribution == null || distribution.isEmpty() ? null : distribution,
        "Local".equals(spec.getInternalTrafficPolicy()),
        ipv6Primary,
        CompactServices.HEADLESS.equals(spec.getClusterIP()),
        externalNameOf(service));
  }

  /**
   * The external name of a {@code type: ExternalName} Service, or null for any other Service and
   * for one whose external name is missing or no DNS name ({@link ExternalNames}, {@link
   * #externalNameSkipOf}).
   */
  static String externalNameOf(Service service) {
    var spec = service.getSpec();
    if (spec == null || !EXTERNAL_NAME.equals(spec.getType())) {
      return null;
    }
    String name = spec.getExternalName();
    return name == null
            || name.length() > ServiceTraffic.MAX_EXTERNAL_NAME_CHARS
            || !ExternalNames.isDnsName(name)
        ? null
        : name;
  }

  /**
   * The skip of an ExternalName Service whose external name is missing, longer than a DNS name (the
   * compact form drops one over {@value ServiceTraffic#MAX_EXTERNAL_NAME_CHARS} characters) or no
   * DNS name at all ({@link ExternalNames}): it is not served, and counted once per version like a
   * malformed slice.
   */
  @Override
  public Optional<Skip> externalNameSkipOf(ServiceKey key) {
    Generation<Service> generation = current;
    ItemStore<Service> store = generation == null ? null : generation.itemStore(key.namespace());
    Service service = store == null ? null : store.get(key.toString());
    if (service == null
        || service.getSpec() == null
        || !EXTERNAL_NAME.equals(service.getSpec().getType())
        || externalNameOf(service) != null) {
      return Optional.empty();
    }
    String name = service.getSpec().getExternalName();
    String detail =
        name == null || name.isEmpty()
            ? "type ExternalName without a spec.externalName, or with one longer than a DNS name"
                + " ("
                + ServiceTraffic.MAX_EXTERNAL_NAME_CHARS
                + " characters)"
            : "type ExternalName whose spec.externalName is not a DNS name: "
                + ExternalNames.problem(name).orElse("");
    return Optional.of(
        new Skip(
            SkipReason.INVALID_EXTERNAL_NAME,
            KIND + " " + key,
            Skip.resourceVersionOf(service),
            detail));
  }

  /** The served generation's (compact) Service under a fabric8 key, or null. */
  Service served(String key) {
    Generation<Service> generation = current;
    int slash = key.indexOf('/');
    ItemStore<Service> store =
        generation == null || slash < 0 ? null : generation.itemStore(key.substring(0, slash));
    return store == null ? null : store.get(key);
  }

  /**
   * The skip of a Service whose declared ports were cut to what a table entry holds ({@link
   * #portsOf(Service)}), counted once per version like a slice's skips; empty for any other.
   */
  @Override
  public Optional<Skip> portsSkipOf(ServiceKey key) {
    Service service = served(key.toString());
    if (service == null) {
      return Optional.empty();
    }
    Declared declared = declared(service);
    if (declared.ports().size() <= TableLimits.MAX_PORTS && declared.overLong() == 0) {
      return Optional.empty();
    }
    String detail =
        declared.overLong() > 0
            ? declared.overLong()
                + " ports with a name or protocol over the "
                + TableLimits.MAX_STRING_BYTES
                + " bytes a table string holds: left out"
            : String.format(
                Locale.ROOT,
                "%,d ports, over the %,d a table entry holds: the first %,d by name kept",
                declared.ports().size(),
                TableLimits.MAX_PORTS,
                TableLimits.MAX_PORTS);
    return Optional.of(
        new Skip(
            SkipReason.OVER_STATE_LIMITS,
            KIND + " " + key,
            Skip.resourceVersionOf(service),
            detail));
  }

  /**
   * A Service's declared ports as the table keeps them: the name ({@code ""} when unnamed), the
   * Service {@code port} and the protocol (TCP when omitted), sorted by name. A port the API server
   * would have refused (a number out of range, a name or protocol longer than a table string) is
   * left out rather than fail the whole Service. Of more than {@link TableLimits#MAX_PORTS} ports
   * (which the API server allows), the first that many are kept, in the order every endpoint's
   * ports are cut to as well (the rule and its reasons: {@code kube/translate/OverLimits}).
   */
  static List<Port> portsOf(Service service) {
    List<Port> ports = declared(service).ports();
    return List.copyOf(
        ports.size() > TableLimits.MAX_PORTS ? ports.subList(0, TableLimits.MAX_PORTS) : ports);
  }

  /**
   * @param ports every valid declared port, sorted, however many
   * @param overLong ports left out for a name or protocol no table string holds
   */
  private record Declared(List<Port> ports, int overLong) {}

  private static Declared declared(Service service) {
    List<ServicePort> declared =
        service.getSpec() == null || service.getSpec().getPorts() == null
            ? List.of()
            : service.getSpec().getPorts();
    List<Port> ports = new ArrayList<>(declared.size());
    int overLong = 0;
    for (ServicePort port : declared) {
      Integer number = port == null ? null : port.getPort();
      if (number == null || number < 1 || number > 65535) {
        continue;
      }
      String name = port.getName() == null ? "" : port.getName();
      String protocol =
          port.getProtocol() == null || port.getProtocol().isEmpty() ? "TCP" : port.getProtocol();
      if (!TableLimits.fits(name) || !TableLimits.fits(protocol)) {
        overLong++;
        continue;
      }
      ports.add(new Port(name, number, protocol));
    }
    Collections.sort(ports);
    return new Declared(ports, overLong);
  }

  /** The Service's key, or empty when its metadata lacks a namespace or name. */
  static Optional<ServiceKey> keyOf(Service service) {
    ObjectMeta meta = service == null ? null : service.getMetadata();
    if (meta == null || isBlank(meta.getNamespace()) || isBlank(meta.getName())) {
      return Optional.empty();
    }
    return Optional.of(new ServiceKey(meta.getNamespace(), meta.getName()));
  }

  /** Every Service the generation holds. */
  static List<ServiceKey> keysOf(Generation<Service> generation) {
    List<ServiceKey> keys = new ArrayList<>();
    for (Service service : generation.objects()) {
      keyOf(service).ifPresent(keys::add);
    }
    return keys;
  }

  void swap(Generation<Service> next) {
    current = next;
  }

  private static boolean isBlank(String text) {
    return text == null || text.isBlank();
  }
}
