package dev.routesync.kube.translate;

/**
 * Prints {@link IpAddresses#canonicalIpv6} of each argument, one per line ({@code null} when it is
 * no literal). Run in a JVM whose {@code jdk.net.hosts.file} maps these texts to addresses, so that
 * a text that reached the resolver shows as an answer instead of a silent (or slow) lookup.
 */
public final class ResolverProbe {

  private ResolverProbe() {}

  public static void main(String[] args) {
    for (String text : args) {
      System.out.println(IpAddresses.canonicalIpv6(text));
    }
  }
}
