/**
 * A scratch dev server (jest's shared one, a benchmark's) whose address does not matter: a start
 * that fails is tried again on fresh ports with a fresh database, since on a loaded machine a free
 * port can be taken between its choice and the server's bind, and a start can time out. When it
 * gives up, the error shows the server's own output and how it ended.
 */
import { rmSync } from 'node:fs';
import {
  DevServerStartError,
  PortInUseError,
  startDevServer,
  type DevServerOptions,
  type RunningDevServer,
} from './dev-server';
import { freePortBesides } from './port-probes';

/** Options of {@link startScratchDevServer}: those of `startDevServer`, on ports of its choosing. */
export type ScratchDevServerOptions = Omit<DevServerOptions, 'port' | 'uiPort'> & {
  /** `false`: headless; default: a web UI on a free port. */
  uiPort?: false;
  /** Starts tried before giving up (default 3). */
  attempts?: number;
  /** Told of each failed start that is tried again. */
  log?: (line: string) => void;
};

const removeDb = (file: string) => {
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      rmSync(`${file}${suffix}`, { force: true });
    } catch {
      // Not a file (a folder in its place): the next attempt fails the same way and says so.
    }
  }
};

/** Starts a dev server on free ports; retries a failed start on fresh ones. */
export async function startScratchDevServer(options: ScratchDevServerOptions): Promise<RunningDevServer> {
  const { attempts = 3, log, ...serverOptions } = options;
  const reasons: string[] = [];
  const tried: number[] = [];
  for (let attempt = 1; ; attempt++) {
    // A free port no earlier attempt had (a random pick may repeat one); startDevServer picks the
    // server's other ports besides it.
    const port = await freePortBesides('127.0.0.1', tried);
    tried.push(port);
    try {
      return await startDevServer({ ...serverOptions, port, portWaitMs: serverOptions.portWaitMs ?? 0 });
    } catch (err) {
      if (!(err instanceof DevServerStartError) && !(err instanceof PortInUseError)) throw err;
      const exit = err instanceof DevServerStartError && err.exit ? ` (${err.exit})` : '';
      reasons.push(
        `attempt ${attempt}: ${err instanceof DevServerStartError ? err.reason : err.message}${exit}`,
      );
      if (attempt >= attempts) {
        const output = err instanceof DevServerStartError ? err.output : '';
        const exitOfLast = err instanceof DevServerStartError ? err.exit : undefined;
        throw new DevServerStartError(
          `Temporal dev server did not start in ${attempts} attempts, on fresh ports each time:\n` +
            reasons.map((r) => `  - ${r}`).join('\n'),
          output,
          exitOfLast,
        );
      }
      log?.(`Temporal dev server did not start (${reasons.at(-1)}); trying again on fresh ports`);
      // Whatever the failed server wrote is no use to a fresh one.
      removeDb(serverOptions.dbFile);
    }
  }
}
