package dev.routesync.kube;

import dev.routesync.kube.translate.Skip;
import dev.routesync.table.ServiceKey;
import java.util.Optional;

/**
 * What translation skipped or cut of a Service object itself ({@link ServicePorts}), reported by
 * {@link ServiceCache} with its slices' skips, once per Service version.
 *
 * <p>Threading: the sync context.
 */
public interface ServiceSkips {

  /** Nothing skipped: a cache that knows no Service objects. */
  ServiceSkips NONE =
      new ServiceSkips() {
        @Override
        public Optional<Skip> externalNameSkipOf(ServiceKey key) {
          return Optional.empty();
        }

        @Override
        public Optional<Skip> portsSkipOf(ServiceKey key) {
          return Optional.empty();
        }
      };

  /** An ExternalName Service without a usable external name: it is not served. */
  Optional<Skip> externalNameSkipOf(ServiceKey key);

  /** A Service whose declared ports were cut to what a table entry holds: it is served so. */
  Optional<Skip> portsSkipOf(ServiceKey key);
}
