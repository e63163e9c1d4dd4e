/**
 * Whether the Temporal cluster serves each agent, watched from the run's own client (which no
 * fault touches): every `everyMs` it describes each agent's workflow, within `timeoutMs`. The
 * stretches in which an agent's describes failed or took longer are stalls of that agent
 * (chaos/tally.ts): the engine cannot mark a message read while the server cannot even read its
 * workflow. They show what no fault's own duration shows: the seconds after a database outage, or
 * a reset of the server's database connections, in which the server acquires its history shards
 * again ("shard status unknown") and answers nothing for the workflows on them. A worker kill, a
 * partitioned worker or a slow link to a worker leaves the describes answered: their time stays
 * counted (the partition has a stall of its own, by its kind).
 */
import type { Stall } from './tally';

/** One describe of one agent's workflow: when it left, when it ended, whether it was answered in time. */
export interface Probe {
  startedAt: number;
  endedAt: number;
  ok: boolean;
}

/**
 * The stalls of `agent` in its probes, pure: each run of failed probes, from the start of its first
 * to the start of the next answered one (or the end of its last, when none was answered after),
 * the cluster not answering that agent's workflow.
 */
export function unservedStalls(agent: string, probes: readonly Probe[]): Stall[] {
  const stalls: Stall[] = [];
  let from: number | undefined;
  let lastEnd = 0;
  for (const p of [...probes].sort((a, b) => a.startedAt - b.startedAt)) {
    if (!p.ok) {
      from ??= p.startedAt;
      lastEnd = Math.max(lastEnd, p.endedAt);
      continue;
    }
    if (from !== undefined) stalls.push({ from, to: p.startedAt, agent });
    from = undefined;
  }
  if (from !== undefined) stalls.push({ from, to: lastEnd, agent });
  return stalls;
}

export interface ServingMonitor {
  /** Stops probing (after the round under way) and gives each agent's stalls. */
  stop(): Promise<Stall[]>;
}

/**
 * Starts probing: `describe(agent, deadline)` must answer by `deadline` (epoch ms) or throw.
 */
export function startServingMonitor(
  agents: readonly string[],
  describe: (agent: string, deadline: number) => Promise<unknown>,
  { everyMs = 250, timeoutMs = 1000 }: { everyMs?: number; timeoutMs?: number } = {},
): ServingMonitor {
  const probes = new Map<string, Probe[]>(agents.map((a) => [a, []]));
  let stopping = false;
  const probeOnce = async (agent: string) => {
    const startedAt = Date.now();
    const ok = await describe(agent, startedAt + timeoutMs).then(
      () => Date.now() - startedAt <= timeoutMs,
      () => false,
    );
    probes.get(agent)!.push({ startedAt, endedAt: Date.now(), ok });
  };
  const loop = (async () => {
    while (!stopping) {
      const round = Date.now();
      await Promise.all(agents.map(probeOnce));
      const wait = round + everyMs - Date.now();
      if (wait > 0 && !stopping) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      return agents.flatMap((a) => unservedStalls(a, probes.get(a)!));
    },
  };
}
