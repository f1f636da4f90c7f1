package dev.routesync.serve;

import java.util.regex.Pattern;

/** Kubernetes name rules for request validation. */
final class Names {

  // RFC 1123 label: namespaces and Service names.
  private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private Names() {}

  static boolean isDns1123Label(String text) {
    return text != null && text.length() <= 63 && DNS_1123_LABEL.matcher(text).matches();
  }
}
