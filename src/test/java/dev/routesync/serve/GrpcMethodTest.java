package dev.routesync.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors;
import dev.routesync.api.v1.RegistryGrpcService;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class GrpcMethodTest {

  @Test
  void oneConstantPerMethodOfTheServiceLabelledAsInTheProto() {
    // The method label must read as the proto does, and a method added to the proto needs a
    // constant before its calls can be counted.
    assertThat(Arrays.stream(GrpcMethod.values()).map(GrpcMethod::label))
        .containsExactlyInAnyOrderElementsOf(
            RegistryGrpcService.SERVICE_DESCRIPTOR.getMethods().stream()
                .map(Descriptors.MethodDescriptor::getName)
                .toList());
  }
}
