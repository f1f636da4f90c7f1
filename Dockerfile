# syntax=docker/dockerfile:1
# routesync container image: build with Maven, a jlinked Java runtime, a distroless non-root base.
#
#   docker build -t routesync:0.1.0-SNAPSHOT .
#
# linux/amd64 only, on purpose: the build downloads protoc for linux-x86_64 and the jar carries
# Netty's linux-x86_64 epoll library, so every stage is pinned to amd64 (the runtime made in one
# stage must match the base of the next).

# ---- 1. build: the all-in-one jar ----------------------------------------------------------
FROM --platform=linux/amd64 maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# Dependencies first, in their own layer, so a source change does not download the world again.
# generate-sources on the .proto files also fetches what dependency:go-offline cannot see: protoc
# (linux-x86_64), the Vert.x protoc plugin and google-java-format (spotless runs in validate).
COPY pom.xml .
COPY src/main/proto src/main/proto
RUN mvn -B -q dependency:go-offline generate-sources
COPY src/main src/main
RUN mvn -B -q package -DskipTests

# ---- 2. jre: only the modules the agent needs (the same script CI runs) --------------------
FROM build AS jre
COPY scripts/jlink-runtime.sh scripts/jlink-runtime.sh
RUN bash scripts/jlink-runtime.sh target/routesync.jar /opt/jre

# ---- 2b. cds: the class-data-sharing archive, from a training run (scripts/cds-archive.sh) -----
# A warm start (demo writes a state file; the agent restores it, serves, is SIGTERMed) on the
# runtime and jar at the paths the image runs them from, with the image's JVM flags: the archive
# checks the runtime's base archive (jlink-runtime.sh makes it), the jar's path, size and mtime.
# The restarted agent then maps its classes instead of reading them from the jar: restart to
# serving the persisted table takes about half as long (benchmarks/README.md, "Restart to serving").
FROM jre AS cds
COPY Dockerfile Dockerfile
COPY scripts/image-env.sh scripts/cds-archive.sh scripts/away.kubeconfig scripts/
# The state file comes from the demo's jar (routesync-demo.jar where the build makes one).
RUN mkdir -p /app && cp -p target/routesync.jar /app/routesync.jar \
 && demo=target/routesync-demo.jar && { [ -f "$demo" ] || demo=target/routesync.jar; } \
 && bash scripts/cds-archive.sh /opt/jre/bin/java /app/routesync.jar "$demo" /app/routesync.jsa

# ---- 3. runtime ----------------------------------------------------------------------------
# glibc (Netty's native epoll transport needs it) plus zlib and libgcc for the JVM, no shell, no
# package manager: distroless's base for a jlinked JRE. (debian:12-slim also works, at ~75 MB.)
FROM --platform=linux/amd64 gcr.io/distroless/java-base-debian12:nonroot
COPY --from=jre /opt/jre /opt/jre
# The very file the archive was trained on: the JVM checks the jar's size and modification time.
COPY --from=cds /app/routesync.jar /app/routesync.jar
# The archive trained on that jar (COPY keeps the jar's mtime, which the archive checks).
COPY --from=cds /app/routesync.jsa /app/routesync.jsa
# distroless's nonroot user; the DaemonSet's hostPath socket directory is chowned to this UID.
USER 65532:65532
# Admin listener: /healthz, /readyz, /metrics. The sidecar API is the Unix socket, not a port.
EXPOSE 9464
# Exec form, no shell: the JVM is PID 1 and receives kubelet's SIGTERM itself, so the agent drains
# (readiness off, GOAWAY, Watch streams ended OK, socket removed) and exits 0. A shell-form
# ENTRYPOINT (`sh -c "java ..."`) makes the shell PID 1; it does not forward SIGTERM, the JVM never
# hears it, and the pod is SIGKILLed at the end of its grace period with its streams reset, as
# the draining seed describes.
# Memory: an explicit layout for the DaemonSet's 256Mi limit, measured with 1,000 Watch streams by
# scripts/soak-memory.sh (docs/install.md, "Memory budget"). Percentages of the limit are not used:
# with MaxRAMPercentage=75 the heap alone could take 192 MiB while the non-heap (metaspace, code,
# symbols, Netty's buffers, malloc) measured ~110 MiB, and the kernel OOM-killed the agent before the
# JVM noticed. Each non-heap area is capped so that a runaway one fails as a JVM OutOfMemoryError
# (and ExitOnOutOfMemoryError restarts the container with a message) instead of a SIGKILL.
# A different limit needs a different layout: set JAVA_TOOL_OPTIONS in the DaemonSet (its test
# checks that the flags fit the limit). scripts/check-runtime.sh and scripts/soak-memory.sh read
# this line (scripts/image-env.sh).
# JIT: C1 only (-XX:TieredStopAtLevel=1). A node agent sees bursts after quiet hours, and with C2
# the first bursts after a start paid more CPU in C2's compiler threads than in the agent's own
# work (benchmarks/process-cpu.sh: 2,150 of 3,790 ms over two bursts of 3,000 events); C1's code
# runs the same work in about 1.7x the time of C2's and compiles it for almost nothing, so the
# whole process costs 0.4 to 0.7 of what it did, and starts faster (benchmarks/README.md).
ENV JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms96m -Xmx96m -XX:MaxMetaspaceSize=80m -XX:ReservedCodeCacheSize=32m -XX:MaxDirectMemorySize=16m -Xss512k -XX:ActiveProcessorCount=2 -XX:TrimNativeHeapInterval=5000 -XX:+ExitOnOutOfMemoryError"
# glibc's malloc keeps up to 8 arenas per CPU, each holding freed memory: two are enough here.
ENV MALLOC_ARENA_MAX=2
# CDS: -Xshare:auto, so an archive that does not match (another runtime or jar) costs the speed
# only; scripts/check-runtime.sh proves the archive is used.
ENTRYPOINT ["/opt/jre/bin/java", "-XX:SharedArchiveFile=/app/routesync.jsa", "-Xshare:auto", "-jar", "/app/routesync.jar"]
CMD ["agent"]
