package dev.routesync.testing;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Services as a real API server returns them and fabric8 decodes them: applied with {@code kubectl
 * apply} (so a {@code last-applied-configuration} annotation and a {@code managedFields} entry),
 * labelled for the mesh, with a ClusterIP, IP families, session affinity and an empty status, two
 * ports (one with a named {@code targetPort}). Each is decoded from its own JSON text, as the watch
 * decodes each event, so no string is shared by accident: what a store retains of them is what the
 * agent would retain.
 */
public final class ApiServerServices {

  /** Namespaces the Services are spread over: ten Services each in a list of 200. */
  public static final int NAMESPACES = 20;

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private ApiServerServices() {}

  /** The {@code index}th Service, decoded. */
  public static Service decoded(int index) {
    return SERIALIZATION.unmarshal(json(index), Service.class);
  }

  /** {@code count} distinct Services, each decoded from its own text. */
  public static List<Service> decodedList(int count) {
    List<Service> services = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      services.add(decoded(i));
    }
    return services;
  }

  /** The API server's JSON of the {@code index}th Service. */
  public static String json(int index) {
    String name = String.format(Locale.ROOT, "checkout-%05d", index);
    String namespace = String.format(Locale.ROOT, "shop-%03d", index % NAMESPACES);
    String uid = String.format(Locale.ROOT, "5f0c7a52-8d0e-4c1b-9a57-2b1c%08x", index);
    String clusterIp = "10.96." + (index / 250 % 250) + "." + (index % 250 + 1);
    String lastApplied =
        ("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"annotations\":"
                + "{\"routesync.dev/owner\":\"team-payments\"},\"labels\":"
                + "{\"app.kubernetes.io/instance\":\"@NAME@\",\"app.kubernetes.io/name\":\"checkout\","
                + "\"app.kubernetes.io/part-of\":\"shop\",\"mesh-managed\":\"true\"},"
                + "\"name\":\"@NAME@\",\"namespace\":\"@NS@\"},\"spec\":{\"ports\":[{\"name\":\"http\","
                + "\"port\":80,\"protocol\":\"TCP\",\"targetPort\":\"http\"},{\"name\":\"grpc\","
                + "\"port\":9090,\"protocol\":\"TCP\",\"targetPort\":9090}],\"selector\":"
                + "{\"app.kubernetes.io/instance\":\"@NAME@\",\"app.kubernetes.io/name\":\"checkout\"},"
                + "\"type\":\"ClusterIP\"}}\n")
            .replace("@NAME@", name)
            .replace("@NS@", namespace);
    return ("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{"
            + "\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":@LAST@,"
            + "\"routesync.dev/owner\":\"team-payments\"},"
            + "\"creationTimestamp\":\"2026-11-30T08:12:44Z\","
            + "\"labels\":{\"app.kubernetes.io/instance\":\"@NAME@\",\"app.kubernetes.io/name\":"
            + "\"checkout\",\"app.kubernetes.io/part-of\":\"shop\",\"mesh-managed\":\"true\"},"
            + "\"managedFields\":[{\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":"
            + "{\"f:metadata\":{\"f:annotations\":{\".\":{},"
            + "\"f:kubectl.kubernetes.io/last-applied-configuration\":{},"
            + "\"f:routesync.dev/owner\":{}},\"f:labels\":{\".\":{},"
            + "\"f:app.kubernetes.io/instance\":{},\"f:app.kubernetes.io/name\":{},"
            + "\"f:app.kubernetes.io/part-of\":{},\"f:mesh-managed\":{}}},"
            + "\"f:spec\":{\"f:internalTrafficPolicy\":{},\"f:ports\":{\".\":{},"
            + "\"k:{\\\"port\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{\".\":{},\"f:name\":{},"
            + "\"f:port\":{},\"f:protocol\":{},\"f:targetPort\":{}},"
            + "\"k:{\\\"port\\\":9090,\\\"protocol\\\":\\\"TCP\\\"}\":{\".\":{},\"f:name\":{},"
            + "\"f:port\":{},\"f:protocol\":{},\"f:targetPort\":{}}},\"f:selector\":{},"
            + "\"f:sessionAffinity\":{},\"f:type\":{}}},"
            + "\"manager\":\"kubectl-client-side-apply\",\"operation\":\"Update\","
            + "\"time\":\"2026-11-30T08:12:44Z\"}],"
            + "\"name\":\"@NAME@\",\"namespace\":\"@NS@\",\"resourceVersion\":\"@RV@\",\"uid\":\"@UID@\"},"
            + "\"spec\":{\"clusterIP\":\"@IP@\",\"clusterIPs\":[\"@IP@\"],"
            + "\"internalTrafficPolicy\":\"Cluster\",\"ipFamilies\":[\"IPv4\"],"
            + "\"ipFamilyPolicy\":\"SingleStack\",\"ports\":[{\"name\":\"http\",\"port\":80,"
            + "\"protocol\":\"TCP\",\"targetPort\":\"http\"},{\"name\":\"grpc\",\"port\":9090,"
            + "\"protocol\":\"TCP\",\"targetPort\":9090}],\"selector\":"
            + "{\"app.kubernetes.io/instance\":\"@NAME@\",\"app.kubernetes.io/name\":\"checkout\"},"
            + "\"sessionAffinity\":\"None\",\"type\":\"ClusterIP\"},"
            + "\"status\":{\"loadBalancer\":{}}}")
        .replace("@LAST@", SERIALIZATION.asJson(lastApplied))
        .replace("@NAME@", name)
        .replace("@NS@", namespace)
        .replace("@RV@", Integer.toString(48_000_000 + index))
        .replace("@UID@", uid)
        .replace("@IP@", clusterIp);
  }
}
