package dev.routesync;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.routesync.sync.Scheduler;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The one-way data flow of DESIGN.md, as dependency rules between packages. */
class ArchitectureTest {

  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.routesync");
  }

  @Test
  void packagesAreFreeOfCycles() {
    slices().matching("dev.routesync.(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void onlyTheCommandsDependOnTheCompositionRoot() {
    // The slice rule above does not see the root package; the Agent wires everything, so only
    // the commands that start it (app/) may depend on it.
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.routesync", "dev.routesync.app..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.routesync")
        .check(classes);
  }

  @Test
  void configHoldsOnlyRecordsAndParsing() {
    // The agent's configuration knows nothing of how the agent is started or runs; it builds the
    // stages' settings records (WatchSettings, CoalescerSettings, ConnectionLimits) and no more.
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.config..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.routesync", "dev.routesync.app..", "io.vertx..")
        .check(classes);
  }

  @Test
  void tableDependsOnNoFrameworkLibrary() {
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.table..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8..", "io.vertx..", "io.micrometer..")
        .check(classes);
  }

  @Test
  void tableDependsOnNoOtherRoutesyncPackage() {
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.table..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.routesync..").and(not(resideInAPackage("dev.routesync.table.."))))
        .check(classes);
  }

  @Test
  void theJsonMappingSeesOnlyTheApiMessages() {
    // serve/ (HTTP bodies) and cli/ (-o json) both print through it: it must depend on neither,
    // nor on the table, so that the JSON is a view of the gRPC messages and nothing else.
    classes()
        .that()
        .resideInAPackage("dev.routesync.api")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("dev.routesync.api..", "com.google.protobuf..", "java..")
        .check(classes);
  }

  @Test
  void syncDependsNeitherOnKubernetesNorOnServing() {
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.sync..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8..", "dev.routesync.kube..", "dev.routesync.serve..")
        .check(classes);
  }

  @Test
  void serveDependsNeitherOnKubernetesNorOnSync() {
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.serve..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.fabric8..", "dev.routesync.kube..", "dev.routesync.sync..")
        .check(classes);
  }

  @Test
  void translationIsPureAndSeesOnlyTheTableAndTheKubernetesModel() {
    // No fabric8 client or informer, no Vert.x, no metrics or logging: input objects in, table
    // records and skips out.
    classes()
        .that()
        .resideInAPackage("dev.routesync.kube.translate..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.routesync.kube.translate..",
            "dev.routesync.table..",
            "io.fabric8.kubernetes.api.model..",
            "java..")
        .check(classes);
  }

  @Test
  void theKubernetesRulesArePureAndSeeOnlyTheKubernetesModel() {
    // One module for lint, gate and the drift detector: objects in, verdicts out; no client, no
    // Vert.x, no logging, and nothing of routesync, so each of the three can use it as is.
    classes()
        .that()
        .resideInAPackage("dev.routesync.rules..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("dev.routesync.rules..", "io.fabric8.kubernetes.api.model..", "java..")
        .check(classes);
  }

  @Test
  void theGateIsACommandBesideTheAgentNotAStageOfIt() {
    // routesync gate judges with rules/ and watches with its own informers: it must not grow into
    // the agent's pipeline (translation, the watch generations, the table, serving, metrics).
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.gate..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.routesync",
            "dev.routesync.kube.translate..",
            "dev.routesync.kube.watch..",
            "dev.routesync.serve..",
            "dev.routesync.observe..",
            "dev.routesync.client..")
        .check(classes);
  }

  @Test
  void theBootstrapCommandKnowsNothingOfTheXdsServerNorTheAgentsPipeline() {
    // routesync bootstrap runs in a client's init container: its contract with the ADS server is
    // the socket path and the resource names, not code. It reads one Node and writes one file.
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.bootstrap..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.routesync",
            "dev.routesync.xds..",
            "dev.routesync.serve..",
            "dev.routesync.sync..",
            "dev.routesync.kube.watch..",
            "dev.routesync.kube.translate..",
            "dev.routesync.observe..",
            "dev.routesync.client..",
            "io.envoyproxy..",
            "com.google.protobuf..")
        .check(classes);
  }

  @Test
  void theWatchMachineryKnowsNothingOfWhatItWatches() {
    // Generations, backoff, relists and resync are reused for every watched kind: no Services,
    // no coalescer, no table, no translation, and none of the EndpointSlice side in kube/.
    classes()
        .that()
        .resideInAPackage("dev.routesync.kube.watch..")
        .should()
        .onlyDependOnClassesThat(
            resideInAnyPackage(
                    "dev.routesync.kube.watch..",
                    // How a duration is written, the same in every log line.
                    "dev.routesync.units..",
                    // How a failure's root cause is found, loops included.
                    "dev.routesync.errors..",
                    "io.fabric8.kubernetes..",
                    "io.vertx.core..",
                    "org.slf4j..",
                    "java..")
                .or(belongToAnyOf(Scheduler.class)))
        .check(classes);
  }

  @Test
  void xdsReadsOnlyTheTable() {
    // xds/ answers from published tables like serve/: Kubernetes, the watches and the coalescer
    // are upstream of it, and serve/ hosts it (never the other way round).
    classes()
        .that()
        .resideInAPackage("dev.routesync.xds..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.routesync.xds..",
            "dev.routesync.table..",
            "dev.routesync.sidecars..",
            "dev.routesync.streams..",
            "io.envoyproxy..",
            "com.google.protobuf..",
            "com.google.rpc..",
            "io.vertx.core..",
            "io.vertx.grpc..",
            "org.slf4j..",
            "java..")
        .check(classes);
  }

  @Test
  void theStreamHubKnowsNothingOfWhatItStreams() {
    // serve/ keeps its Watch streams in it and xds/ its ADS streams: a leaf over Vert.x's context,
    // so that xds/ shares it without reaching into serve/.
    classes()
        .that()
        .resideInAPackage("dev.routesync.streams..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("dev.routesync.streams..", "io.vertx.core..", "java..")
        .check(classes);
  }

  @Test
  void theSidecarsSyncStateSeesOnlyTheTable() {
    // serve/ and xds/ write it from their event loops, the HTTP API and the metrics read it: plain
    // Java over the table's keys, so that neither server drags the other (or Vert.x) in.
    classes()
        .that()
        .resideInAPackage("dev.routesync.sidecars..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("dev.routesync.sidecars..", "dev.routesync.table..", "java..")
        .check(classes);
  }

  @Test
  void thePersistedTableSeesOnlyTheTable() {
    // state/ reads published tables and hands the agent one to start from: it knows nothing of
    // Kubernetes, the watches, the coalescer or serving, and reports through its own observer.
    classes()
        .that()
        .resideInAPackage("dev.routesync.state..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.routesync.state..",
            "dev.routesync.table..",
            "dev.routesync.units..",
            "dev.routesync.files..",
            "org.slf4j..",
            "java..")
        .check(classes);
  }

  @Test
  void onlyTheRootTheMetricsAndTheOptionsKnowThePersistedTable() {
    // The composition root wires it, observe/ counts it, config/ and app/ carry its settings
    // (--state-file, --state-flush; the demo's own directory). No stage of the flow reaches it.
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.routesync",
            "dev.routesync.state..",
            "dev.routesync.observe..",
            "dev.routesync.config..",
            "dev.routesync.app..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.routesync.state..")
        .check(classes);
  }

  @Test
  void theStagesReportThroughTheirOwnObserversNotToTheMetrics() {
    // Each stage owns a small observer interface with enums for its labels (WatchObserver,
    // SkipObserver, SyncObserver, ServeObserver); observe/ implements them with Micrometer. A stage
    // that reached for observe/ again would be back to passing label strings.
    noClasses()
        .that()
        .resideInAnyPackage("dev.routesync.kube..", "dev.routesync.sync..", "dev.routesync.serve..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.routesync.observe..")
        .check(classes);
  }

  @Test
  void onlyTheCompositionRootWiresTheMetrics() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.routesync", "dev.routesync.observe..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.routesync.observe..")
        .check(classes);
  }

  @Test
  void watchingAndSyncingKnowNoMeters() {
    // serve/ touches Micrometer only to scrape it (the admin port's /metrics).
    noClasses()
        .that()
        .resideInAnyPackage("dev.routesync.kube..", "dev.routesync.sync..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.micrometer..")
        .check(classes);
  }

  @Test
  void theDriftDetectorSeesTheWatchesAndTheRulesAndNoServerNorMeters() {
    // watch -> drift -> (metrics, events, serve reads its snapshot): it reports through its own
    // observer and events interfaces, never reaches serve/ or observe/, and needs no Vert.x, so a
    // benchmark can drive its core with a fake scheduler.
    classes()
        .that()
        .resideInAPackage("dev.routesync.drift..")
        .should()
        .onlyDependOnClassesThat(
            resideInAnyPackage(
                    "dev.routesync.drift..",
                    "dev.routesync.rules..",
                    "dev.routesync.kube.watch..",
                    "dev.routesync.kube.events..",
                    "dev.routesync.units..",
                    "dev.routesync.lists..",
                    "io.fabric8.kubernetes.api.model..",
                    "org.slf4j..",
                    "java..")
                .or(belongToAnyOf(Scheduler.class, Scheduler.Cancellable.class)))
        .check(classes);
  }

  @Test
  void theKubernetesModelStaysOnTheKubernetesSide() {
    // fabric8's model is read where Kubernetes objects are the job (the watches, the controller's
    // rules, the drift detector, lint, gate, the demo cluster) and by the composition root that
    // wires the watches; everything from the table on sees only our own records.
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.routesync",
            "dev.routesync.kube..",
            "dev.routesync.rules..",
            "dev.routesync.drift..",
            "dev.routesync.lint..",
            "dev.routesync.gate..",
            "dev.routesync.demo..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.fabric8.kubernetes.api.model..")
        .check(classes);
  }

  @Test
  void kubeDoesNotDependOnServe() {
    noClasses()
        .that()
        .resideInAPackage("dev.routesync.kube..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.routesync.serve..")
        .check(classes);
  }
}
