/**
 * Client connections to Temporal that closing cannot crash. The SDK's retry interceptor
 * (`makeGrpcRetryInterceptor`, on by default) retries a call that failed with a retryable status
 * after a timer, and `Connection.close()` leaves that timer set: when it fires on the closed
 * channel, gRPC throws "Channel has been shut down" inside the timer, an uncaught exception that
 * ends the process (it ended a CI run here: the chaos run's client closed while a call was being
 * retried). Below the retry interceptor, {@link closedChannelGuard} turns that throw into the
 * call's failure (CANCELLED, which is not retried), so the caller's promise rejects instead.
 */
import { InterceptingCall, Metadata, status as GrpcStatus, type Interceptor } from '@grpc/grpc-js';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
  type ConnectionPlugin,
} from '@temporalio/client';

/** What gRPC throws when a call is made on a closed channel. */
export const CHANNEL_SHUT_DOWN = 'Channel has been shut down';

/** An interceptor that ends a call made on a closed channel with CANCELLED instead of throwing. */
export const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (err) {
    if (!(err instanceof Error) || err.message !== CHANNEL_SHUT_DOWN) throw err;
    return endedCall(err.message);
  }
};

/** A call that ends as soon as it starts, with status CANCELLED and `details`; it sends nothing. */
function endedCall(details: string): InterceptingCall {
  // The requester answers every step itself, so the call has no next call to reach.
  const noNextCall = null as unknown as ConstructorParameters<typeof InterceptingCall>[0];
  return new InterceptingCall(noNextCall, {
    start(_metadata, listener) {
      listener.onReceiveStatus({ code: GrpcStatus.CANCELLED, details, metadata: new Metadata() });
    },
    sendMessage() {},
    halfClose() {},
    cancel() {},
  });
}

/** The SDK's default retries, with {@link closedChannelGuard} below them. */
export function closeSafeInterceptors(): Interceptor[] {
  return [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), closedChannelGuard];
}

/** `options` with {@link closeSafeInterceptors}, unless they have interceptors of their own. */
function guarded(options: ConnectionOptions): ConnectionOptions {
  return { ...options, interceptors: options.interceptors ?? closeSafeInterceptors() };
}

/** `Connection.connect` with {@link closeSafeInterceptors} (unless `options` has interceptors of its own). */
export function openConnection(options: ConnectionOptions = {}): Promise<Connection> {
  return Connection.connect(guarded(options));
}

/** `Connection.lazy` with {@link closeSafeInterceptors} (unless `options` has interceptors of its own). */
export function lazyConnection(options: ConnectionOptions = {}): Connection {
  return Connection.lazy(guarded(options));
}

/**
 * The same guard for connections that others make (`TestWorkflowEnvironment`'s, which take no
 * interceptors but do take plugins): adds {@link closeSafeInterceptors} unless the options have
 * interceptors of their own.
 */
export const closeSafePlugin: ConnectionPlugin = {
  name: 'amsflow-close-safe-connection',
  configureConnection: guarded,
};
