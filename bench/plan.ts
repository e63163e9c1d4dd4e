/**
 * What one `npm run bench` measures, from its command line (pure): `--quick` or a full run, and
 * the options that change a part of it. Bad options fail with a {@link BenchOptionError} that
 * says what is accepted, before anything starts.
 *
 *   --quick                  every part, scaled down (under ~10 minutes)
 *   --servers stock,embedded the server kinds the per-server parts run on (default both)
 *   --fleet 1,10,100,1000    the fleet's agent counts (full: 1,10,100,1000,10000; quick: 1,10,100)
 *   --fleet-heap <MB>        the fleet worker's --max-old-space-size (default: Node's)
 *   --fleet-cache <n>        the fleet worker's AMSFLOW_MAX_CACHED_WORKFLOWS (default: follows the heap)
 *   --soak <n>               echoes of the history soak (full: 2000; quick: none)
 *   --tracing-rounds <n>     pairs of tracing's runs, off and on (full: 2; quick: 1)
 *   --only tracing           that part alone, after the latency section as its reference, on the
 *                            servers of --servers (its own results file and its own section of
 *                            REPORT.md; the other figures are left alone)
 */
import type { ServerKind } from './latency';

export class BenchOptionError extends Error {
  constructor(message: string) {
    super(`npm run bench: ${message}`);
    this.name = 'BenchOptionError';
  }
}

export interface BenchPlan {
  mode: 'quick' | 'full';
  servers: ServerKind[];
  latency: { messages: number; spacingMs: number };
  throughput: { agents: number; rates: number[]; secondsPerStep: number; warmupPerSecond: number };
  liveChat: { messages: number; windowMs: number; cadenceMs: number; scale: string };
  recovery: { kills: number };
  cost: { n: number };
  sendBudget: { sends: number; windowMs: number; limit: number; reminders: number };
  fleet: {
    agentCounts: number[];
    /**
     * The fleet measured on the stock server too (its idle cost and figures beside the embedded
     * one's): the largest of `agentCounts` up to 1,000, or none.
     */
    stockAgentCounts: number[];
    idleMs: number;
    lowRate: { perSecond: number; messages: number };
    heapMb?: number;
    maxCachedWorkflows?: number;
  };
  soak: { messages: number; perSecond: number };
  /** Tracing's cost: `rounds` of a run with tracing off and one with it on (ABBA), `messages` echoes each. */
  tracing: { messages: number; spacingMs: number; rounds: number };
  /** A part run alone (`--only`): nothing else is measured. */
  only?: OnlyPart;
}

/** The parts `--only` runs alone. */
export const ONLY_PARTS = ['tracing'] as const;
export type OnlyPart = (typeof ONLY_PARTS)[number];

const OPTIONS = [
  '--quick',
  '--servers',
  '--fleet',
  '--fleet-heap',
  '--fleet-cache',
  '--soak',
  '--tracing-rounds',
  '--only',
];
const VALUED = new Set(OPTIONS.slice(1));

/** `--name value` pairs and flags of `argv` (the arguments after the script). */
function parseArgs(argv: string[]): { flags: Set<string>; values: Map<string, string> } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    if (!OPTIONS.includes(name))
      throw new BenchOptionError(`unknown option ${name} (options: ${OPTIONS.join(', ')})`);
    if (!VALUED.has(name)) {
      flags.add(name);
      continue;
    }
    const value = argv[++i];
    if (value === undefined || value.startsWith('--')) throw new BenchOptionError(`${name} needs a value`);
    values.set(name, value);
  }
  return { flags, values };
}

function positiveInt(name: string, text: string, min = 1): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new BenchOptionError(`${name} takes whole numbers ≥ ${min}, not "${text}"`);
  return n;
}

function servers(text: string | undefined): ServerKind[] {
  if (text === undefined) return ['stock', 'embedded'];
  const kinds = text.split(',');
  for (const k of kinds)
    if (k !== 'stock' && k !== 'embedded')
      throw new BenchOptionError(`--servers takes stock and/or embedded, not "${k}"`);
  return [...new Set(kinds as ServerKind[])];
}

function only(text: string | undefined): OnlyPart | undefined {
  if (text === undefined) return undefined;
  if (!(ONLY_PARTS as readonly string[]).includes(text))
    throw new BenchOptionError(`--only takes ${ONLY_PARTS.join(', ')}, not "${text}"`);
  return text as OnlyPart;
}

/** The stock server's fleet: the largest count up to 1,000 (its idle cost at scale, in minutes). */
function stockCounts(counts: number[]): number[] {
  const fit = counts.filter((c) => c <= 1000);
  return fit.length ? [Math.max(...fit)] : [];
}

/** The plan of a run with these arguments (`process.argv.slice(2)`). */
export function benchPlan(argv: string[]): BenchPlan {
  const { flags, values } = parseArgs(argv);
  const quick = flags.has('--quick');
  const fleet = values.get('--fleet');
  const heap = values.get('--fleet-heap');
  const cache = values.get('--fleet-cache');
  const agentCounts = fleet
    ? fleet.split(',').map((c) => positiveInt('--fleet', c))
    : quick
      ? [1, 10, 100]
      : [1, 10, 100, 1000, 10_000];
  return {
    mode: quick ? 'quick' : 'full',
    servers: servers(values.get('--servers')),
    latency: { messages: quick ? 12 : 100, spacingMs: 2000 },
    throughput: {
      agents: 300,
      rates: quick ? [10, 30] : [10, 20, 30, 40],
      secondsPerStep: quick ? 8 : 25,
      warmupPerSecond: 20,
    },
    liveChat: quick
      ? {
          messages: 16,
          windowMs: 6000,
          cadenceMs: 600,
          scale: 'scaled 1/10: windowMs 6000, human every 0.6 s, two replies each',
        }
      : {
          messages: 24,
          windowMs: 60_000,
          cadenceMs: 6000,
          scale: 'full scale: the spec’s limits, human every 6 s, two replies each',
        },
    recovery: { kills: quick ? 2 : 5 },
    cost: { n: quick ? 2 : 6 },
    sendBudget: { sends: 40, windowMs: quick ? 6000 : 60_000, limit: 12, reminders: 3 },
    fleet: {
      agentCounts,
      stockAgentCounts: stockCounts(agentCounts),
      idleMs: quick ? 5000 : 30_000,
      lowRate: { perSecond: 1, messages: quick ? 8 : 30 },
      ...(heap ? { heapMb: positiveInt('--fleet-heap', heap, 64) } : {}),
      ...(cache ? { maxCachedWorkflows: positiveInt('--fleet-cache', cache, 2) } : {}),
    },
    soak: {
      messages: values.has('--soak') ? positiveInt('--soak', values.get('--soak')!, 0) : quick ? 0 : 2000,
      perSecond: 10,
    },
    tracing: {
      messages: quick ? 12 : 50,
      spacingMs: 2000,
      rounds: values.has('--tracing-rounds')
        ? positiveInt('--tracing-rounds', values.get('--tracing-rounds')!)
        : quick
          ? 1
          : 2,
    },
    ...(values.has('--only') ? { only: only(values.get('--only')) } : {}),
  };
}
