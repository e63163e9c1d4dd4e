/**
 * Handlers on a task queue of their own still reach the agent's media queue: the handler input
 * carries the agent's activity queue prefix.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { resolveLimits } from '../../messaging/limits';
import { agentWorkflowId } from '../../protocol';
import { agentWorkflow } from '../../workflows/engine-workflows';
import { bundle, connectDevServer, waitFor } from '../support/temporal';
import { Engine } from './support';

jest.setTimeout(120_000);

it('handlers on their own task queue reach the agent media queue', async () => {
  const b = await bundle(require.resolve('./media-workflows'));
  const bundlePath = join(mkdtempSync(join(tmpdir(), 'amsflow-bundle-')), 'm.js');
  writeFileSync(bundlePath, b.code);
  const engine = await new Engine(bundlePath, { windowMs: 2000 }).start();
  const temporal = await connectDevServer();
  const handlerQueue = `${engine.taskQueue}-handlers`;
  const handlers = await Worker.create({
    connection: temporal.nativeConnection,
    taskQueue: handlerQueue,
    workflowBundle: b,
  });
  const running = handlers.run();
  try {
    await engine.client.workflow.start(agentWorkflow, {
      workflowId: agentWorkflowId(engine.agentKey),
      taskQueue: engine.taskQueue,
      args: [
        {
          agentKey: engine.agentKey,
          limits: resolveLimits({ windowMs: 2000 }),
          handlerTaskQueue: handlerQueue,
          tuning: { pollTimeoutSeconds: 2, activityHeartbeatTimeoutMs: 3000 },
        },
      ],
    });
    await engine.startWorker();
    const c = engine.sim.control;
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4, 5]);
    const { id } = await c.uploadHumanMedia({ bytes, mimeType: 'image/png', agent: engine.agentKey });
    await c.human({ agent: engine.agentKey, type: 'image', image: { id } });
    const t = await waitFor(
      'reply',
      async () => {
        const t = await engine.transcript();
        return t.sent.length >= 1 && t;
      },
      { timeoutMs: 30_000 },
    );
    const sentId = (t.sent[0].body as { image: { id: string } }).image.id;
    const res = await fetch(c.mediaUrl(sentId));
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  } finally {
    handlers.shutdown();
    await running;
    await engine.close();
    await temporal.close();
  }
});
