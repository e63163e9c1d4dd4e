/**
 * `npm start`: the whole demo on embedded defaults. Starts the embedded Temporal dev server
 * (data under `.amsflow/`) and runs until Ctrl-C, then stops cleanly.
 */
import { join } from 'node:path';
import { resolveTemporalBinaries, projectRoot } from './temporal-binaries';
import { startDevServer } from '../worker/dev-server';

async function main(): Promise<void> {
  const { cli } = await resolveTemporalBinaries();
  if (cli.kind !== 'path') throw new Error('The embedded server needs the Temporal CLI on disk');
  const server = await startDevServer({
    cliPath: cli.path,
    dbFile: join(projectRoot, '.amsflow', 'temporal.db'),
    port: 7233,
    uiPort: 8233,
  });
  console.log(`Temporal dev server at ${server.address}, UI at ${server.uiUrl}. Ctrl-C stops.`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await server.stop();
  console.log('Stopped.');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
