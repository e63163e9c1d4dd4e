/**
 * The commands of a bot project (`amsflow init` makes one; its package.json runs the others).
 * None of them connects to Temporal.
 */
import { resolveTemporalBinaries, ToolsUnavailableError, toolsDir } from '../../tools/temporal-binaries';
import { initProject, InitError } from '../init';
import { command, CommandFailure } from './spec';

export const initCommand = command({
  name: 'init',
  summary: 'make a bot project of its own in <dir> (bot, test, npm start, npm test)',
  description: [
    'Writes a bot module with handlers only, its test (createBotTestEnv), package.json depending on',
    'this amsflow, tsconfig, a jest set-up that type-checks, .gitignore, a README, and the way to',
    'production: a Dockerfile (Node 24) and compose.yaml running the worker against a Temporal',
    'profile (temporal/temporal.toml, .env). Then:',
    '`cd <dir> && npm install && npm start` (web chat), `npm test`. Exit 1 when <dir> is in use.',
  ].join('\n'),
  positionals: [{ name: 'dir', what: 'the folder to make', description: 'the new project folder' }],
  options: {},
  run: async ({ args }) => {
    try {
      initProject(args[0]);
      return 0;
    } catch (err) {
      if (err instanceof InitError) throw new CommandFailure(`amsflow init: ${err.message}`);
      throw err;
    }
  },
});

export const setupCommand = command({
  name: 'setup',
  summary: "install the Temporal binaries into ./.amsflow/tools (a bot project's postinstall)",
  options: {},
  run: async () => {
    try {
      const { cli, testServer } = await resolveTemporalBinaries({ log: (line) => console.log(line) });
      const where = (b: typeof cli) => (b.kind === 'path' ? b.path : b.route);
      console.log(
        `amsflow setup: Temporal CLI ${where(cli)}\namsflow setup: test server ${where(testServer)}`,
      );
      console.log(
        `amsflow setup: binaries in ${toolsDir} (or from TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH)`,
      );
      return 0;
    } catch (err) {
      if (err instanceof ToolsUnavailableError) throw new CommandFailure(err.message);
      throw err;
    }
  },
});

export const startCommand = command({
  name: 'start',
  summary: 'the embedded start (dev server, simulator, web chat) running a bot module',
  description: 'Sets AMSFLOW_WORKFLOWS to <bot module> when given; otherwise as `npm start` of amsflow.',
  positionals: [
    { name: 'bot module', what: 'the bot module', description: 'the bot module to run', optional: true },
  ],
  options: {},
  run: async ({ args, env }) => {
    if (args[0]) env.AMSFLOW_WORKFLOWS = args[0];
    // worker/main.ts starts on import and ends the process when it stops.
    await import('../../worker/main');
    return new Promise<number>(() => undefined);
  },
});
