/**
 * `npm start` / `npm run worker`: runs amsflow from environment variables (see README). With no
 * `TEMPORAL_ADDRESS` it starts the embedded Temporal dev server; with no `AMS_TOKEN` it starts
 * the embedded simulator and prints its web chat address. Ctrl-C (SIGINT) or SIGTERM stops it.
 */
import { ConfigError, loadConfig } from './config';
import { runAmsflow } from './run';

async function main(): Promise<void> {
  const config = loadConfig();
  const running = await runAmsflow(config);
  if (running.chatUrl) console.log(`amsflow: open ${running.chatUrl} and write "echo hello" to the bot`);
  console.log('amsflow: running; Ctrl-C stops');
  // The Temporal runtime turns SIGINT/SIGTERM into a worker shutdown; `done` follows it.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('amsflow: stopping (long polls cancelled, in-flight sends finishing)');
    void running.shutdown();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await running.done;
  console.log('amsflow: stopped');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
