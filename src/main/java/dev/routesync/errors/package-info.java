/**
 * Plain helpers over exceptions, shared by every package that explains a failure to a user. Depends
 * on nothing but the JDK, so any package may use it.
 */
package dev.routesync.errors;
