/**
 * Reading the watched endpoint kinds' lists and watch events straight from their JSON into
 * fabric8's model, in one pass ({@link dev.routesync.kube.decode.FastKubernetesSerialization}); any
 * document in another shape goes to fabric8's own deserialization unchanged.
 */
package dev.routesync.kube.decode;
