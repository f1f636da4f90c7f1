/**
 * The open server streams of the socket, by connection: one hub for the Registry's Watch streams
 * ({@code serve}) and one for the ADS streams ({@code xds}). Depends on nothing else of routesync,
 * so both may use it without a cycle and without {@code xds} reaching into {@code serve}.
 */
package dev.routesync.streams;
