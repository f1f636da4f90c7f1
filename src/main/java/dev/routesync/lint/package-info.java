/**
 * {@code routesync lint}: the seed's incident caught before merge, from manifests alone.
 *
 * <p>{@link dev.routesync.lint.Inputs} names the inputs (files, directories in sorted order,
 * stdin); {@code ManifestReader} composes their YAML with snakeyaml-engine, bounded by {@code
 * ReadLimits} (sizes checked before reading, nodes counted by {@code EventLimits} before anything
 * is built), building only the fields lint reads ({@code PruningComposer}, {@code ReadFields}),
 * into {@code Manifest}s that keep the line of every field; {@code LintedObjects.Collector} maps
 * each Service and workload pod template to fabric8's model as it is read and drops its YAML;
 * {@code Linter} checks each (Service, port, workload) with {@link
 * dev.routesync.rules.TargetPorts}, the module shared with {@code gate} and the drift detector; the
 * reports print the findings as text, JSON, SARIF 2.1.0 or GitHub workflow commands. Unreadable
 * input is one {@code LintInputException}: exit code 2, naming file and line.
 */
package dev.routesync.lint;
