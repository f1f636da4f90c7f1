/**
 * The client commands, {@code routesync get services|endpoints} and {@code routesync watch}: they
 * call the agent's gRPC Registry on its Unix socket and print what it answers.
 *
 * <p>Rendering is pure ({@link dev.routesync.client.TableFormat}, {@link
 * dev.routesync.client.ServiceTable}, {@link dev.routesync.client.EndpointTable}, {@link
 * dev.routesync.client.WatchEventText}): protobuf messages in, strings out. {@code -o json} is
 * {@link dev.routesync.api.ApiJson}, the mapping the HTTP API serves too. {@link
 * dev.routesync.client.AgentClient} owns the Vert.x instance and turns the calls into blocking ones
 * for the picocli thread; its failures are one line each ({@link
 * dev.routesync.client.AgentCallException}), printed with exit code 1.
 */
package dev.routesync.client;
