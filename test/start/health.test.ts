/**
 * `/healthz` and `/readyz` of an in-process amsflow (worker/run.ts) against the dev server and
 * the simulator: alive from the start; ready only while the workers run (503 before they start
 * and once shutdown has begun, with the reason).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { loadConfig } from '../../worker/config';
import { Observability } from '../../worker/observability';
import { runAmsflow, type RunningAmsflow } from '../../worker/run';
import { bundle, connectDevServer, devServerAddress, uniqueTaskQueue } from '../support/temporal';

const TOKEN = 'health-token-5d2c8e';
const AGENT = `h${randomUUID().slice(0, 8)}`;

async function probe(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('health endpoints', () => {
  let sim: RunningSimulator;
  let dir: string;
  let bundlePath: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'amsflow-health-'));
    bundlePath = join(dir, 'workflows.js');
    writeFileSync(bundlePath, (await bundle(require.resolve('../../examples/reference/bot'))).code);
    sim = await startSimulator({
      port: 0,
      agents: [{ id: AGENT, token: TOKEN, creator: 'user:7', creatorName: 'H' }],
    });
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('healthz is 200 throughout; readyz is 503 before the workers run, 200 while they do, 503 from shutdown', async () => {
    const taskQueue = uniqueTaskQueue('health');
    const config = loadConfig({
      AMS_TOKEN: TOKEN,
      AMS_BASE_URL: sim.url,
      AMSFLOW_AGENT: AGENT,
      TEMPORAL_ADDRESS: devServerAddress(),
      AMSFLOW_TASK_QUEUE: taskQueue,
      AMSFLOW_WORKFLOW_BUNDLE: bundlePath,
      AMSFLOW_DATA_DIR: dir,
      AMSFLOW_METRICS_PORT: '0',
      AMSFLOW_METRICS_HOST: '127.0.0.1',
    });
    const obs = await new Observability(config.observability).start();
    const base = obs.url!;
    let running: RunningAmsflow | undefined;
    try {
      expect(await probe(`${base}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await probe(`${base}/readyz`)).toEqual({
        status: 503,
        body: { ready: false, reason: 'starting: the workers are not running yet' },
      });

      running = await runAmsflow(config, () => undefined, obs);
      expect(running.metricsUrl).toBe(base);
      const ready = await probe(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body.ready).toBe(true);
      expect(ready.body.workers).toHaveLength(5);
      expect((ready.body.workers as { taskQueue: string }[]).map((w) => w.taskQueue)).toContain(taskQueue);
      expect((await fetch(`${base}/metrics`)).status).toBe(200);
      expect((await fetch(`${base}/nothing`)).status).toBe(404);

      const stopped = running.shutdown();
      expect(await probe(`${base}/readyz`)).toEqual({
        status: 503,
        body: { ready: false, reason: 'shutting down' },
      });
      await stopped;
      running = undefined;
      expect(await probe(`${base}/readyz`)).toMatchObject({ status: 503 });
      expect(await probe(`${base}/healthz`)).toMatchObject({ status: 200 });
    } finally {
      await running?.shutdown();
      await obs.close();
      const temporal = await connectDevServer();
      await temporal.client.workflow
        .getHandle(`agent:${AGENT}`)
        .terminate('test over')
        .catch(() => undefined);
      await temporal.close();
    }
  }, 60_000);
});
