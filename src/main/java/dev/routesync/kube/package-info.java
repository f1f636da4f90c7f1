/**
 * The Kubernetes edge: fabric8 informers, their supervision (retries, relists beside the served
 * state), the per-Service view the reconciler reads, and counting what translation skipped. The
 * translation itself is pure and lives in {@link dev.routesync.kube.translate}. fabric8 model
 * classes do not leave these packages.
 */
package dev.routesync.kube;
