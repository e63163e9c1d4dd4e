import { parseArgs } from 'node:util';
import { DEFAULT_AGENT, newAgentToken, startSimulator } from './index';

const USAGE =
  'usage: npm run simulator -- [--port <p>] [--host <h>] [--token <t>] [--creator <user:id>] [--creator-name <n>] [--speed <N>] [--window-ms <N>] [--unread-grace-ms <N>] [--allowed-host <name>]...';

function num(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
  return n;
}

/**
 * CLI: prints one JSON line {url, token, chat} and serves until SIGINT/SIGTERM. The token is
 * `--token`, or a new random one each start.
 */
async function run(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      creator: { type: 'string' },
      'creator-name': { type: 'string' },
      speed: { type: 'string' },
      'window-ms': { type: 'string' },
      'unread-grace-ms': { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  const windowMs = num('window-ms', values['window-ms']);
  const sim = await startSimulator({
    host: values.host,
    allowedHosts: values['allowed-host'],
    port: num('port', values.port) ?? 0,
    agents: [
      {
        ...DEFAULT_AGENT,
        token: values.token ?? newAgentToken(),
        ...(values.creator ? { creator: values.creator } : {}),
        ...(values['creator-name'] ? { creatorName: values['creator-name'] } : {}),
      },
    ],
    clock: { speed: num('speed', values.speed) },
    limits: windowMs === undefined ? undefined : { windowMs },
    unreadGraceMs: num('unread-grace-ms', values['unread-grace-ms']),
  });
  process.stdout.write(`${JSON.stringify({ url: sim.url, token: sim.token, chat: sim.chat })}\n`);
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

run().catch((err: unknown) => {
  process.stderr.write(`simulator: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
  process.exit(2);
});
