/**
 * docker-compose.yml's health check of the Temporal server, run on this machine against what the
 * compose file runs (the native cluster: the same server, config template and schema on a
 * throwaway PostgreSQL): healthy while the server serves; unhealthy when its database is gone, and
 * when something merely listens on its ports (a port check would call both healthy). The check's
 * command is taken from the compose file as it is, with the container's ports replaced by the
 * native ones; busybox wget in the image and GNU wget here take the same options.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { startNativeCluster, type NativeCluster } from '../../chaos/cluster/native-cluster';
import { waitFor } from '../support/temporal';

jest.setTimeout(240_000);

const compose = load(readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, { image?: string; healthcheck?: { test: string[] } }>;
};
const server = Object.values(compose.services).find((s) => s.image?.startsWith('temporalio/server:'))!;

/** Whether the compose health check passes against 127.0.0.1 with the frontend's gRPC and HTTP ports given. */
function healthy(ports: { grpc: number; http: number }): Promise<boolean> {
  const [form, command, ...args] = server.healthcheck!.test;
  expect(form).toBe('CMD');
  const native = args.map((arg) =>
    arg.replace(/\b7233\b/g, String(ports.grpc)).replace(/\b7243\b/g, String(ports.http)),
  );
  return new Promise((resolve) => {
    execFile(command, native, { timeout: 30_000 }, (err) => resolve(err === null));
  });
}

it('calls a server that listens but does not serve unhealthy', async () => {
  const standIn = createServer((_req, res) => {
    res.statusCode = 503;
    res.end('not serving');
  });
  await new Promise<void>((r) => standIn.listen(0, '127.0.0.1', r));
  const port = (standIn.address() as AddressInfo).port;
  try {
    expect(await healthy({ grpc: port, http: port })).toBe(false);
  } finally {
    standIn.close();
  }
});

describe('against the native cluster', () => {
  let cluster: NativeCluster | undefined;
  afterAll(() => cluster?.close());

  it('is healthy while the server serves, unhealthy once its database is gone', async () => {
    cluster = await startNativeCluster();
    // The server's own settings: the same variables the compose file gives the image.
    const env = (cluster.server as unknown as { options: { env: Record<string, string> } }).options.env;
    const ports = { grpc: Number(env.FRONTEND_GRPC_PORT), http: Number(env.FRONTEND_HTTP_PORT) };
    expect(await healthy(ports)).toBe(true);
    cluster.postgres.destroy();
    await waitFor('the health check to fail without PostgreSQL', async () => !(await healthy(ports)), {
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
  });
});
