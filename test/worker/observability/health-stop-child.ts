/**
 * Child of health-stop.test.ts: an agent check in flight while Temporal becomes unreachable (a
 * proxy in between is closed), then the monitor is stopped and the connection closed, as a worker
 * does on Ctrl-C. The SDK retries the failed call from a timer; if that timer fires after the
 * close, it throws "Channel has been shut down" uncaught and this process exits 1. Exits 0 on its
 * own when nothing is left running. Usage: `node -r ts-node/register/transpile-only
 * test/worker/observability/health-stop-child.ts <temporal address>`.
 */
import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { AgentHealthMonitor } from '../../../worker/observability/agent-health';

async function main(address: string): Promise<void> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  const sockets = new Set<Socket>();
  const proxy = createServer((inbound) => {
    const outbound = createConnection({ host, port });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  const direct = await Connection.connect({ address });
  const agentKey = `health-stop-${randomUUID().slice(0, 8)}`;
  // A running workflow no worker serves: its describe answers, its query would wait.
  const handle = await new Client({ connection: direct }).workflow.start('nothing', {
    taskQueue: `nobody-${agentKey}`,
    workflowId: `agent:${agentKey}`,
  });
  const connection = await Connection.connect({
    address: `127.0.0.1:${(proxy.address() as AddressInfo).port}`,
  });
  const monitor = new AgentHealthMonitor({
    client: new Client({ connection }),
    agentKeys: [agentKey],
  }).start();
  // Temporal goes away under the check in flight: its call fails UNAVAILABLE and is retried.
  proxy.close();
  for (const s of sockets) s.destroy();
  await monitor.stop();
  await connection.close();
  await handle.terminate('test over');
  await direct.close();
  console.log('health-stop: closed');
}

main(process.argv[2]).catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});
