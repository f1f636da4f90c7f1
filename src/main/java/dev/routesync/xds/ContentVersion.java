package dev.routesync.xds;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;

/**
 * The delta {@code Resource.version} of a listener, route or cluster: a hash of its encoded bytes.
 *
 * <p>Their content is a pure function of the name, so a constant such as {@code "1"} would be right
 * within one build of the agent. It is wrong across an upgrade that changes what {@link
 * XdsResources} builds: Envoy resumes with {@code initial_resource_versions} after the agent
 * restarts, and a constant would tell it that the old encoding is current. The bytes' hash changes
 * exactly when the content does. It is 64-bit FNV-1a, not a cryptographic hash: the agent hashes
 * its own output, nothing a client chose, and a wildcard stream hashes every cluster when the list
 * changes, so it must cost little more than reading the bytes.
 */
final class ContentVersion {

  private static final long OFFSET = 0xcbf29ce484222325L;
  private static final long PRIME = 0x100000001b3L;

  private ContentVersion() {}

  static String of(Any resource) {
    ByteString bytes = resource.getValue();
    long hash = OFFSET;
    for (int i = 0; i < bytes.size(); i++) {
      hash ^= bytes.byteAt(i) & 0xff;
      hash *= PRIME;
    }
    return Long.toHexString(hash);
  }
}
