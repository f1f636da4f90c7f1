/**
 * routesync: a per-node agent that keeps service-mesh sidecars' routing tables in step with the
 * Kubernetes endpoints of opted-in Services.
 *
 * <h2>Flow (one way)</h2>
 *
 * <pre>
 *  API server --watch--> kube/ --dirty keys--> sync/ --new version--> table/ --> serve/ --> sidecars
 * </pre>
 *
 * <ol>
 *   <li>{@code kube/}: fabric8 informers on EndpointSlices (or legacy Endpoints), filtered by a
 *       label selector on the API server. {@link dev.routesync.kube.watch.ResourceWatch} keeps them
 *       alive and relists beside the served state, for any resource kind; {@link
 *       dev.routesync.kube.ServiceEventSink} turns its events and relists into dirty Service keys;
 *       each object is translated to our records once, as it is stored, by pure functions ({@link
 *       dev.routesync.kube.translate.SliceTranslator}).
 *   <li>{@code sync/}: {@link dev.routesync.sync.Coalescer} batches dirty Service keys (leading
 *       edge, debounce, max delay, max batch); {@link dev.routesync.sync.Reconciler} recomputes
 *       each once and publishes only real changes.
 *   <li>{@code table/}: {@link dev.routesync.table.RoutingTable}, immutable and versioned, in a
 *       persistent map; {@link dev.routesync.table.TableWriter} is its single writer.
 *   <li>{@code serve/}: gRPC ({@code routesync.v1.Registry}, health, reflection) and HTTP/JSON on
 *       one Unix socket listener, and an admin port for probes and metrics. Watch streams hold only
 *       the version their subscriber has reached and are nudged on every publish.
 *   <li>{@code drift/}: beside that flow, the drift detector ({@link
 *       dev.routesync.drift.DriftDetector}): this node's Ready pods that are not endpoints of their
 *       Services, from the Pods, Services and slice watches, to gauges, Events and a snapshot
 *       {@code serve/} answers {@code GET /v1/drift} from.
 *   <li>{@code observe/}: metrics of each stage; {@code config/}: the agent's options and their
 *       validated records (parsing only); {@code demo/}: the embedded demo cluster; {@code
 *       client/}: {@code routesync get} and {@code watch}, clients of a running agent; {@code
 *       gate/}: {@code routesync gate}, a deploy pipeline's check of a live cluster; {@code
 *       startup/}: the one start-time error every stage may raise for configuration the operator
 *       must fix (exit code 2); {@code api/}: the one JSON mapping of the gRPC messages; {@code
 *       lint/}: {@code routesync lint}, manifests checked with the rules of {@code rules/}. {@link
 *       dev.routesync.Agent} wires it all; {@code app/} holds the commands that start it ({@code
 *       Main}, {@code agent}, {@code demo}) and the runner that stops it on SIGTERM. Only {@code
 *       app/} depends on the root package, and no package cycle exists (ArchUnit holds both).
 * </ol>
 *
 * <h2>Which thread runs what</h2>
 *
 * <ul>
 *   <li><b>The sync context</b> (one Vert.x event loop) owns the supervisor, the coalescer, the
 *       reconciler and so the table's single writer. No locks: everything that mutates sync state
 *       runs there. fabric8's informer tasks run there too ({@code KubeClients.onContext}): a watch
 *       message's decode, the store update that translates each arriving object once ({@code
 *       ObjectStore.put}), and the handlers, which only mark a Service key dirty and never block.
 *       The reconciler merges the stored translations of each dirty Service.
 *   <li><b>Server event loops</b> answer requests from the latest published table, read through one
 *       volatile reference: readers never block the writer or each other. A publish nudges each
 *       Watch stream onto its connection's event loop, where its message is built.
 *   <li><b>The shutdown hook</b> stops the agent: readiness fails first, then listeners and watches
 *       close.
 * </ul>
 *
 * <p>Kept in sync with refactors, together with {@code docs/ARCHITECTURE.md}.
 */
package dev.routesync;
