// The closest thing a team would write in an afternoon instead of routesync (issue 23): the
// official JavaScript client's informer (@kubernetes/client-node, pinned in package-lock.json)
// on /api/v1/endpoints with the agent's label selector, keeping a Map of namespace/name to the
// ready ip:ports. benchmarks/.../ProcessCpuRun.java runs it beside the agent and the seed's Python
// loop; benchmarks/process-cpu.sh installs it (npm ci) when node_modules is missing.
//
//   node benchmarks/js-informer/informer.mjs <kubeconfig>
//
// Everything below the "harness" line is not the informer's: it counts what the handlers are
// handed, restarts the informer after an error (it stops on any error but 410, and re-watches from
// its last resourceVersion without a relist), and answers the benchmark's commands on stdin, on
// the same single thread as the informer (a command waits for the event being handled).
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';

const SELECTOR = 'mesh-managed=true';

// ---- the informer -------------------------------------------------------------------------------
/** namespace/name -> the ready ip:ports, sorted. */
const registry = new Map();

function readyAddresses(endpoints) {
  const result = new Set();
  for (const subset of endpoints.subsets ?? []) {
    const ports = (subset.ports ?? []).map((p) => p.port);
    for (const address of subset.addresses ?? []) {
      for (const port of ports) {
        result.add(`${address.ip}:${port}`);
      }
    }
  }
  return [...result].sort();
}

function keyOf(endpoints) {
  return `${endpoints.metadata.namespace}/${endpoints.metadata.name}`;
}

/** Sets one entry; false when it already held those addresses (no write, no churn). */
function reconcile(endpoints) {
  const key = keyOf(endpoints);
  const desired = readyAddresses(endpoints);
  const held = registry.get(key);
  if (held !== undefined && held.join(',') === desired.join(',')) {
    return false;
  }
  registry.set(key, desired);
  return true;
}

function drop(endpoints) {
  return registry.delete(keyOf(endpoints));
}

const config = new KubeConfig();
config.loadFromFile(process.argv[2]);
const api = config.makeApiClient(CoreV1Api);
const informer = makeInformer(
  config,
  '/api/v1/endpoints',
  () => api.listEndpointsForAllNamespaces({ labelSelector: SELECTOR }),
  SELECTOR,
);

// ---- harness (not the informer's) ---------------------------------------------------------------
let events = 0; // handler calls
let writes = 0; // changes to the registry
let lastNs = 0n; // process.hrtime is CLOCK_MONOTONIC, as Java's System.nanoTime()

function counted(change) {
  return (endpoints) => {
    if (change(endpoints)) {
      writes++;
    }
    events++;
    lastNs = process.hrtime.bigint();
  };
}

informer.on('add', counted(reconcile));
informer.on('update', counted(reconcile));
informer.on('delete', counted(drop));
informer.on('error', (error) => {
  console.error(`informer stopped: ${error}`);
  setTimeout(() => informer.start().catch((e) => console.error(`restart failed: ${e}`)), 100);
});

/**
 * sha256 over "ns/name ip:port,ip:port\n" per entry, keys sorted as text (as the Python peer);
 * only the entries of namespace when one is given.
 */
function digest(namespace) {
  const lines = [...registry.keys()]
    .filter((key) => !namespace || key.startsWith(`${namespace}/`))
    .sort()
    .map((key) => `${key} ${registry.get(key).join(',')}\n`);
  return createHash('sha256').update(lines.join('')).digest('hex');
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const words = line.trim().split(/\s+/);
  if (words[0] === 'report') {
    console.log(`REPORT ${events} ${lastNs} ${registry.size} ${writes}`);
  } else if (words[0] === 'digest') {
    console.log(`DIGEST ${digest(words[1])}`);
  } else if (words[0] === 'quit') {
    process.exit(0);
  }
}).on('close', () => process.exit(0));

await informer.start();
console.log('STARTED');
