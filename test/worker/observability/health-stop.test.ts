/**
 * Stopping the agent checks before the client's connection closes (a clean Ctrl-C of a worker):
 * nothing the SDK still retries may outlive the connection, or its retry timer throws "Channel
 * has been shut down" and the worker exits 1 after a clean drain. Runs health-stop-child.ts in
 * its own process against the shared dev server, as the worker would be: its exit code is the
 * verdict.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { devServerAddress } from '../../support/temporal';

const root = resolve(__dirname, '..', '..', '..');

it('a check in flight while Temporal goes away ends before the connection closes: the process exits 0', async () => {
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(__dirname, 'health-stop-child.ts'), devServerAddress()],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  expect({ code, output }).toEqual({ code: 0, output: 'health-stop: closed\n' });
}, 60_000);
