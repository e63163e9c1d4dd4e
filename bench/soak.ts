/**
 * History soak: one agent handles many echoes (limits raised) and the agent workflow's history
 * is watched: the longest history of any run (continue-as-new keeps it bounded), how many runs
 * it took, and the size of the state carried from run to run.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startSimulator } from '../simulator';
import { collectEchoes, writeEchoes } from './chat-traffic';
import type { BenchTemporal } from './latency';
import { raisedLimits } from './scaled-tuning';
import { startBenchWorker } from './worker-process';

const LIMITS = raisedLimits(100_000);

export interface SoakResult {
  messages: number;
  answered: number;
  perSecond: number;
  /** The longest history of any run of the agent workflow. */
  longestHistory: number;
  runs: number;
  /** Bytes of the input (carried state) the last run started with. */
  carriedBytes: number;
  /** Bytes of the largest run's history. */
  largestHistoryBytes: number;
  p99Ms: number;
}

/** What the soak reads of each run of the agent workflow. */
interface RunFacts {
  length: number;
  /** Bytes of the run's start input. */
  inputBytes: number;
  /** Bytes of the run's whole history. */
  historyBytes: number;
}

/**
 * The runs of `workflowId`, newest first. Read over a connection of its own that takes messages
 * up to 64 MB: a page of a run's history may exceed gRPC's default 4 MB (it did at raised limits,
 * where every poll carries its window's times).
 */
async function runsOf(address: string, workflowId: string): Promise<RunFacts[]> {
  const connection = await Connection.connect({
    address,
    channelArgs: { 'grpc.max_receive_message_length': 64 * 1024 * 1024 },
  });
  try {
    const client = new Client({ connection });
    const runs: RunFacts[] = [];
    let runId: string | undefined;
    for (let i = 0; i < 10_000; i++) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const events = history.events ?? [];
      const started = events[0]?.workflowExecutionStartedEventAttributes;
      const input = started?.input?.payloads ?? [];
      runs.push({
        length: events.length,
        inputBytes: input.reduce((n, p) => n + (p.data?.length ?? 0), 0),
        historyBytes: temporal.api.history.v1.History.encode(history).finish().length,
      });
      runId = started?.continuedExecutionRunId ?? undefined;
      if (!runId) break;
    }
    return runs;
  } finally {
    await connection.close();
  }
}

export async function measureSoak(
  bench: BenchTemporal,
  { messages, perSecond, workflowBundle }: { messages: number; perSecond: number; workflowBundle?: string },
  progress: (line: string) => void,
): Promise<SoakResult> {
  const agent = {
    id: `soak-${randomUUID().slice(0, 6)}`,
    token: `token-${randomUUID()}`,
    creator: 'user:4242',
  };
  const sim = await startSimulator({ port: 0, limits: LIMITS, agents: [agent] });
  const worker = await startBenchWorker({
    temporalAddress: bench.address,
    simulatorUrl: sim.url,
    agents: [{ agentKey: agent.id, token: agent.token }],
    taskQueue: `soak-${agent.id}`,
    limits: LIMITS,
    workflowBundle,
  });
  try {
    const chunk = Math.max(1, perSecond * 60);
    let answered = 0;
    const latencies: number[] = [];
    for (let done = 0; done < messages; done += chunk) {
      const count = Math.min(chunk, messages - done);
      const written = await writeEchoes(sim, [agent.id], { rate: perSecond, count, tag: `s${done}-` });
      const result = await collectEchoes(sim, written, 60_000);
      answered += result.answered;
      latencies.push(...result.samples);
      progress(`soak: ${done + count}/${messages} written, ${answered} answered`);
    }
    const runs = await runsOf(bench.address, `agent:${agent.id}`);
    latencies.sort((a, b) => a - b);
    return {
      messages,
      answered,
      perSecond,
      longestHistory: Math.max(...runs.map((r) => r.length)),
      runs: runs.length,
      carriedBytes: runs[0].inputBytes,
      largestHistoryBytes: Math.max(...runs.map((r) => r.historyBytes)),
      p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(0.99 * latencies.length))] ?? NaN,
    };
  } finally {
    await worker.stop();
    await bench.client.workflow
      .getHandle(`agent:${agent.id}`)
      .terminate('bench over')
      .catch(() => undefined);
    await sim.close();
  }
}
