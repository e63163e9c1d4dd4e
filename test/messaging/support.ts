/**
 * Helpers of the messaging suite: a simulator per test file, clients that are closed after each
 * test, a dispatcher that records the requests that left, and waits on conditions with deadlines.
 */
import { Agent, type Dispatcher } from 'undici';
import { MessagingClient, type MessagingClientOptions } from '../../messaging';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator';

export const CREATOR = 'user:1001';

/** Fast retry settings, so retry tests take milliseconds, not seconds. */
export const FAST_RETRIES = { backoffBaseMs: 20, backoffMaxMs: 100, rateLimitBackoffMs: 50 } as const;

export interface RecordedRequest {
  method: string;
  path: string;
  at: number;
}

/** An undici Agent that records every request it dispatches (method, path with query, time). */
export class RecordingDispatcher {
  readonly requests: RecordedRequest[] = [];
  private readonly agent = new Agent();
  readonly dispatcher: Dispatcher = this.agent.compose((dispatch) => (opts, handler) => {
    this.requests.push({ method: opts.method, path: opts.path, at: Date.now() });
    return dispatch(opts, handler);
  });

  /** Recorded requests whose path starts with `prefix` (relative to /agent/v1). */
  to(prefix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path.replace(/^\/agent\/v1/, '').startsWith(prefix));
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * Starts one simulator for the test file (2 s windows) and resets it before each test. Clients
 * made with `client()` are closed after each test.
 */
export function useSimulator(options: SimulatorOptions = {}): {
  sim: () => RunningSimulator;
  client: (overrides?: Partial<MessagingClientOptions>) => MessagingClient;
  recorder: () => RecordingDispatcher;
} {
  let sim: RunningSimulator | undefined;
  const clients: MessagingClient[] = [];
  const recorders: RecordingDispatcher[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, ...options, limits: { windowMs: 2000, ...options.limits } });
  });
  afterAll(async () => {
    await sim?.close();
  });
  beforeEach(async () => {
    await sim!.control.reset();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(recorders.splice(0).map((r) => r.close()));
  });
  return {
    sim: () => sim!,
    client: (overrides = {}) => {
      const c = new MessagingClient({
        token: sim!.token,
        baseUrl: sim!.url,
        limits: { windowMs: 2000 },
        ...FAST_RETRIES,
        ...overrides,
      });
      clients.push(c);
      return c;
    },
    recorder: () => {
      const r = new RecordingDispatcher();
      recorders.push(r);
      return r;
    },
  };
}

/** Polls `read` until `predicate` holds; fails with the last value after `timeoutMs`. */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  predicate: (value: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (predicate(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** The rejection of `promise` (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** Milliseconds between consecutive entries. */
export function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}
