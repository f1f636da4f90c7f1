/**
 * The Kubernetes edge: fabric8 informers, their supervision (retries, relists beside the served
 * state) and pure translation of EndpointSlices and Endpoints into table records. fabric8 model
 * classes do not leave this package.
 */
package dev.routesync.kube;
