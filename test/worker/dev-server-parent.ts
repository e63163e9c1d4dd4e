/**
 * Test fixture, not a test: a parent process for the embedded dev server. It starts the server
 * with the CLI in `TEMPORAL_CLI_PATH` and its data in the file given as argument, prints
 * `{ port, pid, watchdogPid }` as one JSON line, and then idles until it is killed.
 *
 * Usage: `node -r ts-node/register/transpile-only test/worker/dev-server-parent.ts <db file>`
 */
import { startDevServer } from '../../worker/dev-server';

async function main(): Promise<void> {
  const cliPath = process.env.TEMPORAL_CLI_PATH;
  const dbFile = process.argv[2];
  if (!cliPath || !dbFile) throw new Error('needs TEMPORAL_CLI_PATH and a db file argument');
  const server = await startDevServer({ cliPath, dbFile, uiPort: false });
  const port = Number(server.address.split(':')[1]);
  console.log(JSON.stringify({ port, pid: server.pid, watchdogPid: server.watchdogPid }));
  setInterval(() => undefined, 60_000);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
