/**
 * The cluster chaos run's nemesis: while the humans write, network faults one after another on
 * toxiproxy's proxies — added latency, connection resets, a bandwidth limit, on the links between
 * the workers and the Temporal frontend, between the workers and the service, and between the
 * Temporal server and PostgreSQL, and partitions that cut one worker off both its links, or off
 * the Temporal frontend only, for longer than the heartbeat timeouts — in shuffled rounds, so that every kind comes up; and
 * PostgreSQL stopped (crashed or shut down) and started again at random intervals, its first
 * outage a long one. Every fault is healed before the next, and all at `stop()`. It counts what
 * it did per kind and keeps a timeline for the post-mortem.
 */
import type { RunningToxiproxy, Toxic } from './cluster/toxiproxy';

export type Link = 'frontend' | 'service' | 'postgres';

/** What the nemesis acts on (the cluster stage provides it). */
export interface NemesisTargets {
  toxiproxy: RunningToxiproxy;
  /** Proxy names of each link: one per worker slot for `frontend` and `service`, one for `postgres`. */
  proxies: Record<Link, string[]>;
  postgres: { stop(mode: 'immediate' | 'fast'): Promise<void>; start(): Promise<void> };
  /** Runs `work` while no other exclusive work runs: a database outage never meets a server restart. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

export interface NemesisOptions {
  /** Pause between two network faults, ms (drawn in the range). */
  networkGapMs: [number, number];
  /** How long a latency or bandwidth fault lasts, ms. */
  networkFaultMs: [number, number];
  /** How long connection resets go on, ms. */
  resetMs: number;
  /** How long a worker stays cut off (longer than the activities' heartbeat timeout). */
  partitionMs: number;
  /** Pause between two database outages, ms. */
  postgresGapMs: [number, number];
  /** How long a database outage lasts, ms; the first lasts {@link longPostgresOutageMs}. */
  postgresOutageMs: [number, number];
  longPostgresOutageMs: number;
}

/** One fault the nemesis caused: its kind (a key of `met`), when, for how long. */
export interface NemesisEvent {
  kind: string;
  at: number;
  ms: number;
}

/**
 * Whether a fault stops everything while it lasts (PostgreSQL down, a worker partitioned): its
 * time is not counted against the read checks (chaos/tally.ts). Latency, resets and bandwidth
 * limits slow the engine down; it must keep its promises through them.
 */
export function stopsEverything(e: NemesisEvent): boolean {
  return e.kind.startsWith('PostgreSQL') || e.kind.startsWith('partition');
}

export interface Nemesis {
  /** Faults done, per kind. */
  met: Record<string, number>;
  events: NemesisEvent[];
  /** Calls to toxiproxy or PostgreSQL that failed (each retried until it succeeded, or the fault skipped). */
  errors: string[];
  /**
   * Stops both loops after the fault under way (healed), then causes each kind in `required`
   * (a partition, a database outage) that has not come up yet once, so that even a short run
   * meets it.
   */
  stop(required?: ('partition' | 'postgres')[]): Promise<void>;
}

type NetworkFault =
  | { kind: 'latency' | 'reset' | 'bandwidth'; link: Link }
  /** `both`: the worker cut off from everything; `frontend`: from Temporal only, the service still reached. */
  | { kind: 'partition'; from: 'both' | 'frontend' };

const LINK_NAMES: Record<Link, string> = {
  frontend: 'workers ↔ Temporal frontend',
  service: 'workers ↔ service',
  postgres: 'Temporal server ↔ PostgreSQL',
};

/** The toxics of a latency, bandwidth or reset fault on `link`: sized for what the link carries. */
export function toxicsOf(kind: 'latency' | 'reset' | 'bandwidth', link: Link): Toxic[] {
  if (kind === 'latency') {
    const [latency, jitter] = { frontend: [300, 150], service: [400, 200], postgres: [30, 15] }[link];
    return [{ name: 'latency', type: 'latency', stream: 'downstream', attributes: { latency, jitter } }];
  }
  if (kind === 'bandwidth') {
    const rate = { frontend: 32, service: 8, postgres: 64 }[link];
    return (['upstream', 'downstream'] as const).map((stream) => ({
      name: `bandwidth-${stream}`,
      type: 'bandwidth' as const,
      stream,
      attributes: { rate },
    }));
  }
  return [{ name: 'reset', type: 'reset_peer', stream: 'upstream', attributes: { timeout: 0 } }];
}

/** A blackhole both ways (data dropped, connections left open), as a real partition. */
const PARTITION: Toxic[] = (['upstream', 'downstream'] as const).map((stream) => ({
  name: `partition-${stream}`,
  type: 'timeout',
  stream,
  attributes: { timeout: 0 },
}));

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const ROUND: NetworkFault[] = [
  ...(['latency', 'reset', 'bandwidth'] as const).flatMap((kind) =>
    (['frontend', 'service', 'postgres'] as const).map((link) => ({ kind, link })),
  ),
  { kind: 'partition', from: 'both' },
  { kind: 'partition', from: 'frontend' },
];

export function startNemesis(
  targets: NemesisTargets,
  options: NemesisOptions,
  { random, log }: { random: () => number; log: (line: string) => void },
): Nemesis {
  const met: Record<string, number> = {};
  const events: NemesisEvent[] = [];
  let stopping = false;
  const errors: string[] = [];
  /** A fault that could not be caused is noted and the loop goes on (it never ends the run). */
  const failed = (err: unknown) => {
    const message = `a fault failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    errors.push(message);
    log(`chaos: ${message}`);
  };
  const sleepers = new Set<() => void>();
  /** Sleeps `ms`, or until stop() when `interruptible`. */
  const pause = (ms: number, interruptible: boolean) =>
    new Promise<void>((done) => {
      const end = () => {
        clearTimeout(timer);
        sleepers.delete(end);
        done();
      };
      const timer = setTimeout(end, ms);
      if (interruptible) sleepers.add(end);
    });
  const within = ([low, high]: [number, number]) => Math.round(low + random() * (high - low));
  const record = (kind: string, at: number) => {
    met[kind] = (met[kind] ?? 0) + 1;
    events.push({ kind, at, ms: Date.now() - at });
    log(`chaos: ${kind} for ${((Date.now() - at) / 1000).toFixed(1)} s`);
  };

  /**
   * Calls `heal` until it succeeds: a fault is never left in place. (toxiproxy answers a toxic's
   * removal only once the toxic's goroutine takes the interrupt, which waits while it is
   * blocked handing data to a peer that does not read, e.g. behind a bandwidth limit.)
   */
  const insist = async (what: string, heal: () => Promise<void>) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await heal();
      } catch (err) {
        const message = `${what} failed (attempt ${attempt}): ${(err as Error).message.split('\n')[0]}`;
        errors.push(message);
        log(`chaos: ${message}; trying again`);
        await pause(1000, false);
      }
    }
  };

  /** Applies `toxics` to `proxies` for `ms` (not cut short by stop: a fault runs its course). */
  const poison = async (proxies: string[], toxics: Toxic[], ms: number) => {
    const { toxiproxy } = targets;
    try {
      for (const proxy of proxies) for (const toxic of toxics) await toxiproxy.addToxic(proxy, toxic);
      await pause(ms, false);
    } finally {
      for (const proxy of proxies)
        for (const toxic of toxics)
          await insist(`removing ${toxic.name} from ${proxy}`, () =>
            toxiproxy.removeToxic(proxy, toxic.name),
          );
    }
  };

  const network = async (fault: NetworkFault) => {
    const at = Date.now();
    if (fault.kind === 'partition') {
      const slot = Math.floor(random() * targets.proxies.frontend.length);
      log(`chaos: partitioning worker slot ${slot} (${fault.from}) for ${options.partitionMs} ms`);
      const proxies = [targets.proxies.frontend[slot]];
      if (fault.from === 'both') proxies.push(targets.proxies.service[slot]);
      await poison(proxies, PARTITION, options.partitionMs);
      record(
        fault.from === 'both'
          ? 'partition of one worker (frontend and service)'
          : 'partition of one worker from the frontend only',
        at,
      );
      return;
    }
    const ms = fault.kind === 'reset' ? options.resetMs : within(options.networkFaultMs);
    log(`chaos: ${fault.kind} on ${LINK_NAMES[fault.link]} for ${ms} ms`);
    await poison(targets.proxies[fault.link], toxicsOf(fault.kind, fault.link), ms);
    record(`${fault.kind}: ${LINK_NAMES[fault.link]}`, at);
  };

  const outage = async (long: boolean) => {
    const ms = long ? options.longPostgresOutageMs : within(options.postgresOutageMs);
    const mode = random() < 0.5 ? 'immediate' : 'fast';
    await targets.exclusive(async () => {
      const at = Date.now();
      log(`chaos: stopping PostgreSQL (${mode}) for ${ms} ms`);
      try {
        await targets.postgres.stop(mode);
        await pause(ms, false);
      } finally {
        await insist('starting PostgreSQL', () => targets.postgres.start());
      }
      record(`PostgreSQL ${long ? 'long ' : ''}outage (${mode === 'immediate' ? 'crash' : 'shutdown'})`, at);
    });
  };

  const networkLoop = (async () => {
    while (!stopping) {
      for (const fault of shuffled(ROUND, random)) {
        await pause(within(options.networkGapMs), true);
        if (stopping) return;
        await network(fault).catch(failed);
      }
    }
  })();
  let outages = 0;
  const postgresLoop = (async () => {
    while (!stopping) {
      await pause(within(options.postgresGapMs), true);
      if (stopping) return;
      await outage(outages++ === 0).catch(failed);
    }
  })();

  return {
    met,
    events,
    errors,
    async stop(required = []) {
      stopping = true;
      for (const end of [...sleepers]) end();
      await Promise.all([networkLoop, postgresLoop]);
      const seen = (prefix: string) => Object.keys(met).some((k) => k.startsWith(prefix));
      if (required.includes('partition') && !seen('partition of one worker (frontend and service)'))
        await network({ kind: 'partition', from: 'both' });
      if (required.includes('postgres') && !seen('PostgreSQL')) await outage(outages++ === 0);
      // Whatever a failed call may have left: every toxic off.
      await insist('resetting toxiproxy', () => targets.toxiproxy.reset());
    },
  };
}
