/**
 * The chaos run's fault injector: about `share` of all requests meet a fault of a kind the
 * simulator has (429 with and without Retry-After, 503, drops before and after acceptance, a
 * 500 after acceptance, slow answers, malformed JSON, a replaced poll), on the polls, the sends
 * and the status requests of random agents. It counts what it injected, so that the verdict can
 * tell the service's own 429s and 409s from injected ones and compare surfaced ambiguous sends
 * with the faults that make a send's outcome unknown.
 */
import type { Fault, RunningSimulator } from '../simulator';

type Endpoint = 'updates' | 'messages' | 'statuses';

const FAULTS: Record<Endpoint, Fault[]> = {
  updates: [
    { kind: 'rate_limit', retryAfter: 1 },
    { kind: 'rate_limit', retryAfter: null },
    { kind: 'not_accepted' },
    { kind: 'drop_before' },
    { kind: 'drop_after' },
    { kind: 'slow', delayMs: 1500 },
    { kind: 'malformed_json' },
    { kind: 'poll_replaced' },
  ],
  messages: [
    { kind: 'rate_limit', retryAfter: 1 },
    { kind: 'rate_limit', retryAfter: null },
    { kind: 'not_accepted' },
    { kind: 'server_error_after_accept' },
    { kind: 'drop_before' },
    { kind: 'drop_after' },
    { kind: 'slow', delayMs: 1500 },
    { kind: 'malformed_json' },
  ],
  statuses: [
    { kind: 'rate_limit', retryAfter: 1 },
    { kind: 'not_accepted' },
    { kind: 'drop_after' },
    { kind: 'malformed_json' },
  ],
};

/** Kinds after which a send's outcome is unknown (the request may have been accepted). */
const AMBIGUOUS: ReadonlySet<string> = new Set([
  'server_error_after_accept',
  'drop_before',
  'drop_after',
  'malformed_json',
]);

export interface InjectedFault {
  agent: string;
  endpoint: Endpoint;
  kind: string;
  id: string;
}

export interface FaultInjector {
  injected: InjectedFault[];
  stop(): Promise<void>;
  /** Injected faults that a request met (pending ones are not counted). */
  consumed(): Promise<InjectedFault[]>;
}

/** Faults owed at most (see the injector's loop). */
const MAX_OWED = 3;

export function ambiguousKinds(faults: InjectedFault[]): number {
  return faults.filter((f) => f.endpoint === 'messages' && AMBIGUOUS.has(f.kind)).length;
}

export function startFaults(
  sim: RunningSimulator,
  agents: string[],
  { share, random }: { share: number; random: () => number },
): FaultInjector {
  const injected: InjectedFault[] = [];
  const pairs = agents.flatMap((agent) =>
    (Object.keys(FAULTS) as Endpoint[]).map((endpoint) => [agent, endpoint] as const),
  );
  let stopped = false;
  let carry = 0;
  let lastTotal = 0;
  const requestsNow = async () => {
    let total = 0;
    for (const agent of agents) {
      const t = await sim.control.transcript({ agent });
      total += Object.values(t.counts.requests).reduce((a, b) => a + b, 0);
    }
    return total;
  };
  const loop = (async () => {
    lastTotal = await requestsNow();
    while (!stopped) {
      await new Promise((r) => setTimeout(r, 1000));
      const total = await requestsNow().catch(() => lastTotal);
      // (Capped: faults owed while every endpoint was busy do not come later in a burst.)
      carry = Math.min(MAX_OWED, carry + (total - lastTotal) * share);
      lastTotal = total;
      if (carry < 1) continue;
      // Never a second fault on an endpoint whose first no request has met yet: on an idle
      // endpoint they would pile up and meet one request's every retry.
      const pending = await sim.control.faults().catch(() => undefined);
      if (!pending) continue;
      const busy = new Set(pending.map((f) => `${f.agent} ${f.endpoint}`));
      while (carry >= 1 && !stopped) {
        const free = pairs.filter(([agent, endpoint]) => !busy.has(`${agent} ${endpoint}`));
        if (free.length === 0) break;
        carry -= 1;
        const [agent, endpoint] = free[Math.floor(random() * free.length)];
        const fault = FAULTS[endpoint][Math.floor(random() * FAULTS[endpoint].length)];
        const { id } = await sim.control.fault({ agent, endpoint, count: 1, fault });
        busy.add(`${agent} ${endpoint}`);
        injected.push({ agent, endpoint, kind: fault.kind, id });
      }
    }
  })();
  return {
    injected,
    async stop() {
      stopped = true;
      await loop;
    },
    async consumed() {
      const pending = new Set((await sim.control.faults()).map((f) => f.id));
      return injected.filter((f) => !pending.has(f.id));
    },
  };
}
