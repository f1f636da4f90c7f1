package dev.routesync.testing;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The receiving half of a grpc-java stream in a test: every message, in order, and how the stream
 * ended (its status; OK for a clean end). For streams whose requests a test writes by hand; {@link
 * AdsClient} speaks the ADS protocol itself.
 */
public final class ResponseRecorder<T> implements StreamObserver<T> {

  private final BlockingQueue<T> responses = new LinkedBlockingQueue<>();
  private final CompletableFuture<Status> ended = new CompletableFuture<>();

  /** What arrived and has not been taken yet. */
  public BlockingQueue<T> responses() {
    return responses;
  }

  /** Completes with the stream's status when it ends either way. */
  public CompletableFuture<Status> ended() {
    return ended;
  }

  @Override
  public void onNext(T value) {
    responses.add(value);
  }

  @Override
  public void onError(Throwable t) {
    ended.complete(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    ended.complete(Status.OK);
  }
}
