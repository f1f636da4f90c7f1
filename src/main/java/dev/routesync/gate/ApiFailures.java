package dev.routesync.gate;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/**
 * One line for a failed call to the API server, in the words of RBAC: which verb on which resource
 * in which namespace, and why ({@code cannot list endpointslices.discovery.k8s.io in namespace
 * shop: forbidden}). A pipeline's operator fixes a Role with it, or the network.
 */
final class ApiFailures {

  private ApiFailures() {}

  /**
   * @param verb {@code list} or {@code watch}
   * @param resource as RBAC names it: {@code pods}, {@code endpointslices.discovery.k8s.io}
   * @param server the API server's URL, for the unreachable case
   */
  static String describe(
      String verb, String resource, String namespace, String server, Throwable error) {
    return "cannot "
        + verb
        + " "
        + resource
        + " in namespace "
        + namespace
        + ": "
        + why(server, error);
  }

  /** A refusal the gate cannot wait out (a missing permission, bad credentials). */
  static boolean isRefusal(Throwable error) {
    int code = code(error);
    return code == 401 || code == 403;
  }

  private static String why(String server, Throwable error) {
    int code = code(error);
    switch (code) {
      case 403:
        return "forbidden";
      case 401:
        return "unauthorized (check the kubeconfig's credentials)";
      case 404:
        return "not found (the API server does not serve this resource)";
      default:
        break;
    }
    if (code > 0) {
      return "HTTP " + code + statusMessage(error);
    }
    Throwable root = error;
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "the API server at " + server + " is unreachable: connection refused";
      }
      if (t instanceof SocketTimeoutException || t instanceof TimeoutException) {
        return "the API server at " + server + " did not answer in time (--request-timeout)";
      }
      if (t instanceof UnknownHostException) {
        return "the API server at " + server + " is unreachable: unknown host " + t.getMessage();
      }
      root = t;
    }
    String message =
        root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    if (message.toLowerCase(java.util.Locale.ROOT).contains("timeout")
        || message.toLowerCase(java.util.Locale.ROOT).contains("timed out")) {
      return "the API server at " + server + " did not answer in time (--request-timeout)";
    }
    return "the API server at " + server + " is unreachable: " + message;
  }

  private static int code(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k && k.getCode() > 0) {
        return k.getCode();
      }
      if (t instanceof WatcherException w) {
        KubernetesClientException k = w.asClientException();
        if (k != null && k.getCode() > 0) {
          return k.getCode();
        }
      }
    }
    return 0;
  }

  private static String statusMessage(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k
          && k.getStatus() != null
          && k.getStatus().getMessage() != null) {
        return ": " + k.getStatus().getMessage();
      }
    }
    return "";
  }
}
