/**
 * `npm start` / `npm run worker`: runs amsflow from environment variables (see README). With no
 * `TEMPORAL_ADDRESS` it starts the embedded Temporal dev server; with no `AMS_TOKEN` it starts
 * the embedded simulator. It prints the web chat and Temporal UI addresses, the bot's commands,
 * and whether it resumed what the last run kept under the data dir (`.amsflow/`). Ctrl-C
 * (SIGINT) or SIGTERM stops it; the simulator's state is written a last time on the way out.
 */
import { loadConfig } from './config';
import { installRuntime, Observability } from './observability';
import { botCommands, formatBanner, runAmsflow } from './run';

async function main(): Promise<void> {
  const config = loadConfig();
  // Logger, metrics and health first: the Runtime before any connection, the endpoint at once.
  const obs = new Observability(config.observability);
  await installRuntime({ logger: obs.logger, metrics: config.observability.metricsPort !== 'off' });
  const json = config.observability.logFormat === 'json';
  const say = json ? (line: string) => obs.logger.info(line) : (line: string) => console.log(line);
  await obs.start();
  if (obs.url) say(`amsflow: metrics and health at ${obs.url} (/metrics, /healthz, /readyz)`);
  const running = await runAmsflow(config, say, obs);
  // The Temporal runtime turns SIGINT/SIGTERM into a worker shutdown; `done` follows it.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const chat = running.chatUrl ? ', then the chat is written to disk' : '';
    say(`amsflow: stopping (long polls cancelled, in-flight sends finishing${chat})`);
    void running.shutdown();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // With a prebuilt bundle, the module at workflowsPath is not the bot that runs.
  const commands = config.workflowBundlePath ? [] : await botCommands(config.workflowsPath);
  if (!stopping) say(formatBanner(running, commands));
  await running.done;
  await obs.close();
  say('amsflow: stopped');
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
