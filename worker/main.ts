/**
 * `npm start` / `npm run worker`: runs amsflow from environment variables (see README). With no
 * `TEMPORAL_ADDRESS` it starts the embedded Temporal dev server; with no `AMS_TOKEN` it starts
 * the embedded simulator and prints its web chat address. Ctrl-C (SIGINT) or SIGTERM stops it.
 */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { ConfigError, loadConfig } from './config';
import { runAmsflow } from './run';

const LEVELS: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
/** Expected on activity-only and workflow-only workers; not worth an operator's attention. */
const EXPECTED = /^No (activities|workflows|Nexus services) registered/;

function installLogger(): void {
  const wanted = (process.env.AMSFLOW_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  const level = LEVELS.includes(wanted) ? wanted : 'WARN';
  const base = new DefaultLogger(level);
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      if (!EXPECTED.test(entry.message)) base.log(entry.level, entry.message, entry.meta);
    }),
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  installLogger();
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
