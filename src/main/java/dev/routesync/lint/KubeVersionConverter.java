package dev.routesync.lint;

import dev.routesync.rules.KubeVersion;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --kube-version 1.31}, {@code v1.31.4} or {@code 1.31+}, as {@link KubeVersion} reads. */
final class KubeVersionConverter implements ITypeConverter<KubeVersion> {
  @Override
  public KubeVersion convert(String value) {
    try {
      return KubeVersion.parse(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
