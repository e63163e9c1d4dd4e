/**
 * `npm start` / `npm run worker`: runs amsflow from environment variables (see README). With no
 * `TEMPORAL_ADDRESS` it starts the embedded Temporal dev server; with no `AMS_TOKEN` it starts
 * the embedded simulator. It prints the web chat and Temporal UI addresses, the bot's commands,
 * and whether it resumed what the last run kept under the data dir (`.amsflow/`). Ctrl-C
 * (SIGINT) or SIGTERM stops it; the simulator's state is written a last time on the way out.
 */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { loadConfig } from './config';
import { botCommands, formatBanner, runAmsflow } from './run';

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
  // The Temporal runtime turns SIGINT/SIGTERM into a worker shutdown; `done` follows it.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const chat = running.chatUrl ? ', then the chat is written to disk' : '';
    console.log(`amsflow: stopping (long polls cancelled, in-flight sends finishing${chat})`);
    void running.shutdown();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // With a prebuilt bundle, the module at workflowsPath is not the bot that runs.
  const commands = config.workflowBundlePath ? [] : await botCommands(config.workflowsPath);
  if (!stopping) console.log(formatBanner(running, commands));
  await running.done;
  console.log('amsflow: stopped');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    // amsflow's own errors (configuration, a port in use, an unusable state file) say all there is.
    const own = err instanceof Error && /^AMSFLOW_/.test(String((err as { code?: unknown }).code));
    console.error(own ? err.message : err);
    process.exit(1);
  },
);
