package dev.routesync.e2e;

/**
 * One request the agent's identity must be refused: what it is (for the failure message) and the
 * call itself, made with the ServiceAccount's token.
 */
record Refusal(String what, Call call) {

  @FunctionalInterface
  interface Call {
    Object run();
  }
}
