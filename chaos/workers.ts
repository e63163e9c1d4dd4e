/**
 * The chaos runs' worker supervisor: keeps one worker process (`worker/main.ts`) running in each
 * of `count` slots, starting a new one whenever one dies or is killed. Each slot has its own
 * options (on the cluster, its own proxies to the Temporal frontend and the service).
 */
import { startBenchWorker, type BenchWorker, type BenchWorkerOptions } from '../bench/worker-process';

export interface WorkerSlots {
  /** Resolves once every slot has a running worker. */
  ready(): Promise<void>;
  /** The slots' workers (undefined while a slot's worker is starting). */
  live(): { slot: number; worker: BenchWorker }[];
  /** SIGKILLs the worker of one slot (chosen by `pick` among the live ones); returns the slot. */
  kill(pick: (n: number) => number): Promise<number>;
  /** Stops the supervisor and every worker (SIGINT). */
  close(): Promise<void>;
  /** Output of every worker that exited (kept only with `keepOutput`). */
  exitedOutput: string[];
  /** Workers that exited without being killed or stopped (each logged with its last lines). */
  unexpectedExits(): number;
}

export function superviseWorkers(options: {
  count: number;
  optionsFor(slot: number): BenchWorkerOptions;
  log(line: string): void;
  keepOutput?: boolean;
}): WorkerSlots {
  const slots: (BenchWorker | undefined)[] = Array.from({ length: options.count }, () => undefined);
  const exitedOutput: string[] = [];
  const killed = new Set<BenchWorker>();
  let unexpected = 0;
  let stopping = false;
  const supervise = async () => {
    while (!stopping) {
      for (let i = 0; i < slots.length && !stopping; i++) {
        if (slots[i]) continue;
        try {
          const worker = await startBenchWorker(options.optionsFor(i));
          slots[i] = worker;
          void worker.exited.then(() => {
            if (slots[i] === worker) slots[i] = undefined;
            if (!killed.has(worker) && !stopping) {
              unexpected++;
              options.log(`chaos: worker ${i} exited by itself:\n${worker.output.slice(-8).join('\n')}`);
            }
            killed.delete(worker);
            if (options.keepOutput) exitedOutput.push(`--- worker ${i} exited`, ...worker.output);
          });
        } catch (err) {
          // (The message ends with the worker's last output lines: the reason is the last but its stack.)
          const lines = (err as Error).message.split('\n').filter((l) => l && !/^\s+at /.test(l));
          options.log(`chaos: a worker did not start (${lines.at(-1)}); trying again`);
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const supervisor = supervise();
  return {
    exitedOutput,
    unexpectedExits: () => unexpected,
    async ready() {
      while (slots.some((s) => !s)) await new Promise((r) => setTimeout(r, 100));
    },
    live: () => slots.flatMap((worker, slot) => (worker ? [{ slot, worker }] : [])),
    async kill(pick) {
      // (A slot whose worker is still starting is not a target: wait for one that runs.)
      let live = slots.map((w, i) => [w, i] as const).filter(([w]) => w !== undefined);
      while (live.length === 0) {
        await new Promise((r) => setTimeout(r, 200));
        live = slots.map((w, i) => [w, i] as const).filter(([w]) => w !== undefined);
      }
      const [worker, index] = live[pick(live.length)];
      killed.add(worker!);
      await worker!.kill();
      if (slots[index] === worker) slots[index] = undefined;
      return index;
    },
    async close() {
      stopping = true;
      await supervisor;
      await Promise.all(slots.map((w) => (w ? w.stop() : Promise.resolve())));
    },
  };
}
