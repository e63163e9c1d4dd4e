/**
 * The barrels by audience: `amsflow` (the client API) loads no Temporal worker, so an application
 * that starts agents or asks approvals does not load the worker's native core; `amsflow/worker`
 * has what running workers needs. Checked in a fresh Node process (jest's module registry is not
 * Node's).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** The `@temporalio/*` packages Node loaded for `entry`, in a process of its own. */
function temporalPackagesLoadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)});
const names = new Set(Object.keys(require.cache).map((f) => /node_modules\\/(@temporalio\\/[^/]+)\\//.exec(f)?.[1]).filter(Boolean));
process.stdout.write(JSON.stringify([...names].sort()));`;
  const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

it('amsflow loads no Temporal worker; amsflow/worker does', () => {
  const client = temporalPackagesLoadedBy('./index.ts');
  expect(client).toContain('@temporalio/client');
  expect(client).not.toContain('@temporalio/worker');
  expect(client).not.toContain('@temporalio/core-bridge');
  expect(temporalPackagesLoadedBy('./worker/index.ts')).toContain('@temporalio/worker');
}, 60_000);
