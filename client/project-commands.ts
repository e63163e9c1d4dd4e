/**
 * The commands of a bot project (`amsflow init` makes one; its package.json runs the others):
 *   amsflow init <dir>       make a bot project in <dir> (client/init.ts)
 *   amsflow setup            install the Temporal binaries into ./.amsflow/tools (its postinstall)
 *   amsflow start [<bot>]    the embedded start (npm start of amsflow: dev server, simulator, web
 *                            chat) running the bot module <bot> (sets AMSFLOW_WORKFLOWS)
 * None of them connects to Temporal, so they do not take the options of the other commands.
 */
import { parseArgs } from 'node:util';
import { resolveTemporalBinaries, ToolsUnavailableError, toolsDir } from '../scripts/temporal-binaries';
import { initProject, InitError } from './init';

export const PROJECT_USAGE = `  amsflow init <dir>
  amsflow setup
  amsflow start [<bot module>]`;

const COMMANDS = ['init', 'setup', 'start'];

/** Whether `argv` (without node and the script) names a project command. */
export function isProjectCommand(argv: readonly string[]): boolean {
  return COMMANDS.includes(argv[0]);
}

/** Runs a project command; resolves to the exit code (`start` never resolves: the worker exits). */
export async function runProjectCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(1),
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\nusage:\n${PROJECT_USAGE}`);
    return 2;
  }
  const [command] = argv;
  const max = command === 'setup' ? 0 : 1;
  if (parsed.values.help) {
    console.log(`usage:\n${PROJECT_USAGE}`);
    return 0;
  }
  if (parsed.positionals.length > max || (command === 'init' && parsed.positionals.length === 0)) {
    console.error(
      `${command === 'init' ? 'init needs one folder' : `${command} takes at most ${max} argument`}\nusage:\n${PROJECT_USAGE}`,
    );
    return 2;
  }
  if (command === 'init') return init(parsed.positionals[0]);
  if (command === 'setup') return setup();
  if (parsed.positionals[0]) env.AMSFLOW_WORKFLOWS = parsed.positionals[0];
  // worker/main.ts starts on import and ends the process when it stops.
  await import('../worker/main');
  return new Promise<number>(() => undefined);
}

function init(dir: string): number {
  try {
    initProject(dir);
    return 0;
  } catch (err) {
    if (err instanceof InitError) {
      console.error(`amsflow init: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

async function setup(): Promise<number> {
  try {
    const { cli, testServer } = await resolveTemporalBinaries({ log: (line) => console.log(line) });
    const where = (b: typeof cli) => (b.kind === 'path' ? b.path : b.route);
    console.log(`amsflow setup: Temporal CLI ${where(cli)}\namsflow setup: test server ${where(testServer)}`);
    console.log(
      `amsflow setup: binaries in ${toolsDir} (or from TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH)`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ToolsUnavailableError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}
