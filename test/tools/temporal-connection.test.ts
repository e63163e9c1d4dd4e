/**
 * tools/temporal-connection.ts: closing a connection while the SDK waits to retry a call ends that
 * call (CANCELLED) instead of the process. Each case runs as its own process: the SDK's default
 * interceptors crash it ("Channel has been shut down", thrown in the retry's timer), so the
 * default case shows the hazard the guarded one is tested against.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { closeSafePlugin, closedChannelGuard } from '../../tools/temporal-connection';

const fixture = join(__dirname, 'fixtures', 'close-during-retry.ts');

function run(mode: 'guarded' | 'default'): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', fixture, mode],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, out: stdout, err: stderr }),
    );
  });
}

describe('a connection closed while a call waits to be retried', () => {
  it("with the SDK's interceptors, the retry's timer throws and the process dies", async () => {
    const { code, out, err } = await run('default');
    expect(out).toMatch(/^closed\n$/);
    expect(code).not.toBe(0);
    expect(err).toContain('Channel has been shut down');
  }, 40_000);

  it('with closeSafeInterceptors, the call is rejected CANCELLED and the process goes on', async () => {
    const { code, out, err } = await run('guarded');
    expect(err).toBe('');
    expect(code).toBe(0);
    const [closed, outcome, ended] = out.trim().split('\n');
    expect(closed).toBe('closed');
    expect(outcome).toBe('rejected: 1 1 CANCELLED: Channel has been shut down');
    expect(Number(/^ended (\d+) ms/.exec(ended)?.[1])).toBeLessThan(5_000);
  }, 40_000);
});

describe('closeSafePlugin', () => {
  it("puts the guard below the retries of a connection made by someone else's code", async () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1', plugins: [closeSafePlugin] });
    try {
      const { interceptors } = connection.options;
      expect(interceptors).toHaveLength(2);
      expect(interceptors[1]).toBe(closedChannelGuard);
    } finally {
      await connection.close();
    }
  });

  it('leaves interceptors given on purpose alone', async () => {
    const own = [closedChannelGuard];
    const connection = Connection.lazy({
      address: '127.0.0.1:1',
      interceptors: own,
      plugins: [closeSafePlugin],
    });
    try {
      expect(connection.options.interceptors).toBe(own);
    } finally {
      await connection.close();
    }
  });
});
