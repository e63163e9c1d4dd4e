/**
 * The cluster chaos run's stage: the native cluster (PostgreSQL, the Temporal server built from
 * its Go module, chaos/cluster/) with the server's database connections through toxiproxy, the
 * simulator, and `workers` worker processes, each reaching the Temporal frontend and the service
 * through proxies of its own slot (so that one worker can be cut off). The run's own client and
 * the scripted humans reach the server and the service directly: what they observe is not
 * faulted. Server restarts alternate a crash (SIGKILL) and a graceful stop, and never overlap a
 * database outage.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { openConnection } from '../tools/temporal-connection';
import { scaledTuning } from '../bench/scaled-tuning';
import { findToxiproxy } from '../scripts/cluster-tools';
import { startSimulator } from '../simulator';
import { startNativeCluster, type NativeCluster } from './cluster/native-cluster';
import { startToxiproxy, type RunningToxiproxy } from './cluster/toxiproxy';
import type { Link } from './nemesis';
import type { Stage, StageOptions } from './stage';
import { superviseWorkers } from './workers';
import { ASK_AGAIN_INTERCEPTORS } from '../protocol/messages';

/** A lock: one piece of exclusive work at a time, in the order asked. */
function exclusiveLock(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>) => {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  };
}

export async function startClusterStage(options: StageOptions): Promise<Stage> {
  const toxiproxy: RunningToxiproxy = await startToxiproxy(findToxiproxy());
  let cluster: NativeCluster | undefined;
  const closers: (() => Promise<void>)[] = [() => toxiproxy.stop()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  };
  try {
    const started = Date.now();
    cluster = await startNativeCluster({
      databaseRoute: async (pg) => {
        const proxy = await toxiproxy.createProxy('postgres', `${pg.host}:${pg.port}`);
        return { host: '127.0.0.1', port: proxy.port };
      },
    });
    const c = cluster;
    closers.push(() => c.close());
    options.log(`chaos: native cluster up in ${Date.now() - started} ms ${JSON.stringify(c.timings)}`);
    const connection = await openConnection({ address: c.address });
    closers.push(() => connection.close());
    const client = new Client({ connection, namespace: c.namespace, interceptors: ASK_AGAIN_INTERCEPTORS });
    const tag = randomUUID().slice(0, 6);
    const agents = Array.from({ length: options.agents }, (_, i) => ({
      id: `cluster${tag}-${i}`,
      token: `token-${tag}-${i}-${randomUUID()}`,
      creator: 'user:4242',
    }));
    const sim = await startSimulator({
      port: 0,
      limits: { windowMs: options.windowMs },
      agents,
      unreadGraceMs: options.unreadGraceMs,
    });
    closers.push(() => sim.close());
    const simUrl = new URL(sim.url);
    const proxies: Record<Link, string[]> = { frontend: [], service: [], postgres: ['postgres'] };
    const ports: { frontend: number; service: number }[] = [];
    for (let slot = 0; slot < options.workers; slot++) {
      const frontend = await toxiproxy.createProxy(`frontend-${slot}`, c.address);
      const service = await toxiproxy.createProxy(`service-${slot}`, simUrl.host);
      proxies.frontend.push(frontend.name);
      proxies.service.push(service.name);
      ports.push({ frontend: frontend.port, service: service.port });
    }
    const taskQueue = `chaos-${tag}`;
    const workers = superviseWorkers({
      count: options.workers,
      optionsFor: (slot) => {
        const url = new URL(sim.url);
        url.port = String(ports[slot].service);
        return {
          temporalAddress: `127.0.0.1:${ports[slot].frontend}`,
          simulatorUrl: url.toString().replace(/\/$/, ''),
          agents: agents.map((a) => ({ agentKey: a.id, token: a.token })),
          taskQueue,
          limits: { windowMs: options.windowMs },
          tuning: scaledTuning(options.windowMs),
          workflowBundle: options.workflowBundle,
          readyTimeoutMs: 90_000,
          env: { TEMPORAL_NAMESPACE: c.namespace },
        };
      },
      log: (line) => options.log(line),
      keepOutput: Boolean(options.keepDir),
    });
    closers.push(() => workers.close());
    await workers.ready();
    const exclusive = exclusiveLock();
    let restarts = 0;
    // As a process supervisor would: a server that exited by itself (during or after a database
    // outage) is started again, between the nemesis's exclusive faults, and the log says so. A
    // check that meets an outage waits for its lock and runs as soon as the database is back.
    const supervise = async () => {
      if (c.server.running) return;
      options.log('chaos: the Temporal server had exited by itself; starting it again');
      await c.server.start();
    };
    let checking = false; // one check waits for the lock at a time (an outage holds it for long)
    const supervisor = setInterval(() => {
      if (checking) return;
      checking = true;
      exclusive(supervise)
        .catch((err: unknown) =>
          options.log(`chaos: starting the Temporal server again failed: ${(err as Error).message}`),
        )
        .finally(() => (checking = false));
    }, 2000);
    closers.push(async () => clearInterval(supervisor));
    return {
      sim,
      client,
      agents: agents.map((a) => a.id),
      taskQueue,
      killWorker: (pick) => workers.kill(pick),
      unexpectedExits: () => workers.unexpectedExits(),
      restartServer: () =>
        exclusive(async () => {
          // Odd restarts crash the server, even ones stop it gracefully.
          await c.server.stop(restarts++ % 2 === 0 ? 0 : 20_000);
          await c.server.start();
        }),
      cluster: { toxiproxy, proxies, postgres: c.postgres, exclusive },
      async close() {
        if (options.keepDir) {
          mkdirSync(options.keepDir, { recursive: true });
          const service = await Promise.all(
            agents.map(async (a) => ({
              agent: a.id,
              transcript: await sim.control.transcript({ agent: a.id }),
              log: await sim.control.log(a.id),
            })),
          );
          await workers.close();
          writeFileSync(join(options.keepDir, 'service.json'), JSON.stringify(service, null, 1));
          writeFileSync(join(options.keepDir, 'workers.log'), workers.exitedOutput.join('\n'));
          writeFileSync(join(options.keepDir, 'temporal-server.log'), c.server.output.join('\n'));
          options.log(`chaos: kept the transcripts, worker and server output in ${options.keepDir}`);
        }
        await closeAll();
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
