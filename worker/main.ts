/**
 * `npm start` / `npm run worker`: runs amsflow from environment variables (see README). With no
 * `TEMPORAL_ADDRESS` it starts the embedded Temporal dev server; with no `AMS_TOKEN` it starts
 * the embedded simulator. It prints the web chat and Temporal UI addresses, the bot's commands,
 * and whether it resumed what the last run kept under the data dir (`.amsflow/`). Nothing starts
 * before the configuration and every port it needs are checked (worker/preflight.ts). Ctrl-C
 * (SIGINT) or SIGTERM stops it; the simulator's state is written a last time on the way out.
 */
import { checkedConfig } from './preflight';
import type { RunningAmsflow } from './run';
import { onStopSignals } from './stop-signals';

async function main(): Promise<void> {
  const config = await checkedConfig();
  // Loaded once the configuration is known to be good: a bad one is reported in a second, not
  // after the Temporal SDK and the engine have loaded.
  const { installRuntime, Observability } = await import('./observability');
  const { botCommands, formatBanner, runAmsflow } = await import('./run');
  // Logger, metrics and health first: the Runtime before any connection, the endpoint at once.
  const obs = new Observability(config.observability);
  installRuntime({ logger: obs.logger, metrics: config.observability.metricsPort !== 'off' });
  const json = config.observability.logFormat === 'json';
  const say = json ? (line: string) => obs.logger.info(line) : (line: string) => console.log(line);
  await obs.start();
  if (obs.url) say(`amsflow: metrics and health at ${obs.url} (/metrics, /healthz, /readyz)`);
  if (obs.tracesUrl) say(`amsflow: traces to ${obs.tracesUrl} (OpenTelemetry, OTLP/HTTP)`);
  // From here on, a signal drains what has started (worker/stop-signals.ts); one during the start
  // drains it as soon as the start is over.
  const run: { running?: RunningAmsflow; stopping: boolean } = { stopping: false };
  const drain = (running: RunningAmsflow) => {
    const chat = running.chatUrl ? ', then the chat is written to disk' : '';
    say(
      `amsflow: stopping (long polls cancelled, in-flight sends finishing${chat}; a second Ctrl-C stops at once)`,
    );
    void running.shutdown();
  };
  onStopSignals(
    () => {
      run.stopping = true;
      if (run.running) drain(run.running);
    },
    () => {
      console.error('amsflow: stopped at once, without waiting for the drain');
      process.exit(130);
    },
  );
  const running = await runAmsflow(config, say, obs);
  run.running = running;
  if (run.stopping) drain(running);
  // With a prebuilt bundle, the module at workflowsPath is not the bot that runs.
  const commands = config.workflowBundlePath ? [] : await botCommands(config.workflowsPath);
  if (!run.stopping) say(formatBanner(running, commands));
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
