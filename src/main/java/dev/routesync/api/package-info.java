/**
 * The API's shared definitions beside the classes generated from {@code routesync/v1/*.proto} (in
 * {@code dev.routesync.api.v1}): what both the serving side ({@code serve/}) and the client ({@code
 * client/}) need, and nothing that depends on either. Today that is {@link
 * dev.routesync.api.ApiJson}, the one JSON mapping.
 */
package dev.routesync.api;
