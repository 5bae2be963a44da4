// The API side's Temporal client: one lazy connection (it connects on first use, so the API starts even while
// Temporal is still coming up; /readyz reports it), closed on shutdown.
//
// src/temporal/ is the client side of the Temporal boundary (docs/architecture.md habit 1): every class that signals a
// workflow from the API lives beside this file (recording-orchestrator, empty-room-timer) and implements a port that
// the module using it declares (src/modules/recordings/recording.ports.ts, src/realtime/realtime.ports.ts): this
// folder depends on the modules, never the reverse. Starts are hand-overs (src/handover/). Ids, signals and queries
// come from workflows/shared.ts; the worker side is src/worker.ts with src/activities/ (createActivities).
import { InterceptingCall, ListenerBuilder, RequesterBuilder, status, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Config } from '../config.ts';
import { temporalClientInterceptors } from '../tracing/tracing.ts';

export interface TemporalClient {
  client: Client;
  /** Stops retries, cancels the calls in flight, waits for each to end, then closes the connection. */
  close(): Promise<void>;
}

export function createTemporalClient(config: Config['temporal']): TemporalClient {
  const calls = new ClosableCalls();
  const connection = Connection.lazy({ address: config.address, interceptors: calls.interceptors() });
  // With tracing on, a start or signal continues the caller's trace into the run (docs/decisions.md §12).
  const interceptors = temporalClientInterceptors();
  const client = new Client({ connection, namespace: config.namespace, ...(interceptors ? { interceptors } : {}) });
  return {
    client,
    async close() {
      await calls.drain();
      await connection.close();
    },
  };
}

/**
 * Every gRPC call of one connection, from its start to its final status (after the SDK's retries).
 *
 * Why: the SDK retries a call that failed with a retryable status (UNAVAILABLE …) from a timer. A call still waiting
 * for a connection when the channel closes fails with UNAVAILABLE, and its retry timer then creates a call on the
 * closed channel: "Channel has been shut down", thrown inside the timer, an uncaught exception (the caller's promise
 * never settles). Neither Connection.close() nor an abort signal stops that timer, so close must first stop the
 * retries and let every call end while the channel is still open (`drain`).
 */
export class ClosableCalls {
  private readonly calls = new Map<InterceptingCall, Promise<void>>();
  private closing = false;

  /** The connection's interceptors: this tracker outermost, then the SDK's default retries (gated by close). */
  interceptors(): Interceptor[] {
    const retry = defaultGrpcRetryOptions();
    return [
      this.track,
      makeGrpcRetryInterceptor({
        delayFunction: retry.delayFunction,
        retryableDecider: (attempt, failed) => !this.closing && retry.retryableDecider(attempt, failed),
      }),
    ];
  }

  /** No more retries; calls in flight are cancelled (a long poll would otherwise hold close) and awaited. */
  async drain(): Promise<void> {
    this.closing = true;
    while (this.calls.size > 0) {
      for (const call of this.calls.keys()) call.cancelWithStatus(status.CANCELLED, 'Temporal connection closing');
      // A call between two attempts (its retry timer pending) cannot be cancelled: its next attempt runs on the still
      // open channel, is not retried, and ends the call.
      await Promise.allSettled([...this.calls.values()]);
    }
  }

  /** How many calls have not ended (tests). */
  get inFlight(): number {
    return this.calls.size;
  }

  private readonly track: Interceptor = (options, nextCall) => {
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const call: InterceptingCall = new InterceptingCall(
      nextCall(options),
      new RequesterBuilder()
        .withStart((metadata, listener, next) => {
          next(
            metadata,
            new ListenerBuilder()
              .withOnReceiveStatus((final, nextStatus) => {
                this.calls.delete(call);
                ended();
                nextStatus(final);
              })
              .build(),
          );
        })
        .build(),
    );
    this.calls.set(call, done);
    return call;
  };
}
