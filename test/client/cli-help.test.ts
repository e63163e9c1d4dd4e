/**
 * The command line as a table of commands: `amsflow --help` lists them, `amsflow <command> --help`
 * (and `approval --help`, `approval request --help`) describes one and its options and exits 0,
 * and unknown commands, subcommands, options and arguments fail with a clear message, exit 2,
 * before anything is contacted. No server is needed: every run here has a Temporal address where
 * nothing listens, so a command that tried to connect would fail with exit 1, not 2.
 */
import { commandsOf, usageLine } from '../../client/cli/help';
import { COMMANDS } from '../../client/cli/commands';
import { parseOptionsOf, resolve } from '../../client/cli/parse';
import { agentOption, TEMPORAL_ENVIRONMENT } from '../../client/cli/options';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_NAMESPACE,
  DEFAULT_QUERY_TIMEOUT_MS,
  DEFAULT_TEMPORAL_ADDRESS,
} from '../../client/cli/temporal';
import { originProblem, portProblem } from '../../client/codec-server';
import { formatDuration } from '../../core/durations';
import { agentKeyProblem, DEFAULT_TASK_QUEUE } from '../../protocol/agent';
import { command, isGroup, type Entry } from '../../client/cli/spec';
import { main } from '../../client/cli';
import { run } from './cli-runner';

const env = { TEMPORAL_ADDRESS: '127.0.0.1:9' };

describe('amsflow --help', () => {
  it('lists every command with its summary, the environment, and how to get more', async () => {
    const { code, out, err } = await run(['--help'], env);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    for (const { path, spec } of commandsOf(COMMANDS)) {
      expect(out).toContain(`\n  ${usageLine(path, spec)}\n`);
      expect(out).toMatch(new RegExp(`\\n  ${path} +${escape(spec.summary)}\\n`));
    }
    expect(out).toContain('TEMPORAL_ADDRESS');
    expect(out).toContain('amsflow <command> --help describes a command and its options.');
  });

  it('keeps the usage lines others rely on', async () => {
    const { out } = await run(['-h'], env);
    for (const line of [
      'amsflow ensure [--agent <key>]',
      'amsflow send <text> [--agent <key>] [--reply-to <message id>] [--request-id <id>] [--retry-ambiguous]',
      'amsflow state [--agent <key>]',
      'amsflow conversations list [--agent <key>] [--all] [--json]',
      'amsflow conversations show <workflow id>',
      'amsflow conversations cancel <workflow id> [--reason <text>]',
      'amsflow approval request --question <text> [--agent <key>] [--timeout 10m] [--remind-after 5m] [--id <id>] [--wait] [--json]',
      'amsflow approval list [--agent <key>] [--json]',
      'amsflow approval cancel <id> [--agent <key>] [--reason <text>] [--json]',
      'amsflow codec-server [--port 8888] [--host 127.0.0.1] [--origin <Temporal UI origin>]...',
    ])
      expect(out).toContain(`\n  ${line}`);
  });
});

describe('amsflow <command> --help', () => {
  const paths = commandsOf(COMMANDS).map(({ path, spec }) => [path, spec] as const);

  it.each(paths)(
    '%s --help: its usage, what it does, each option with its description; exit 0',
    async (path, spec) => {
      const { code, out, err } = await run([...path.split(' '), '--help'], env);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(out.split('\n')[0]).toBe(`usage: ${usageLine(path, spec)}`);
      expect(out).toContain(spec.summary);
      for (const [name, option] of Object.entries(spec.options)) {
        expect(out).toMatch(new RegExp(`\\n  --${name}\\b.* ${escape(option.description)}`));
      }
      for (const p of spec.positionals ?? [])
        expect(out).toMatch(new RegExp(`\\n  <${p.name}> +${escape(p.description)}`));
      // Not the global list.
      expect(out).not.toContain('commands:');
    },
  );

  it('shows defaults: from a variable and from the declaration', async () => {
    const { out } = await run(['approval', 'request', '--help'], env);
    expect(out).toMatch(/--agent <key> .*\(default: \$AMSFLOW_AGENT, else "default"\)/);
    expect(out).toMatch(/--timeout 10m .*\(default: 10m\)/);
    expect(out).toMatch(/--question <text> .*\(required\)/);
    expect(out).toMatch(/Exit codes: 0 requested/);
  });

  it('takes --help anywhere, even where the command line is otherwise incomplete', async () => {
    for (const argv of [
      ['approval', 'request', '-h'],
      ['--help', 'approval', 'request'],
      ['send', '--help'],
      ['conversations', 'show', '--help'],
    ]) {
      const { code, out } = await run(argv, env);
      expect({ argv, code }).toEqual({ argv, code: 0 });
      expect(out).toMatch(/^usage: amsflow (approval request|send|conversations show)/);
    }
  });

  it.each([['approval'], ['conversations']])(
    '%s --help: its subcommands with their summaries; exit 0',
    async (name) => {
      const group = COMMANDS.find((e) => e.name === name)!;
      if (!isGroup(group)) throw new Error(`${name} is not a group`);
      const { code, out, err } = await run([name, '--help'], env);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(out).toMatch(/^usage:\n/);
      for (const spec of group.commands) {
        expect(out).toContain(`  amsflow ${name} ${spec.name}`);
        expect(out).toMatch(new RegExp(`\\n  ${name} ${spec.name} +${escape(spec.summary)}`));
      }
      expect(out).toContain(`amsflow ${name} <command> --help`);
      expect(out).not.toContain('codec-server');
    },
  );
});

describe('a command line that cannot run: a clear message, exit 2, nothing contacted', () => {
  it.each([
    [['frobnicate'], /^unknown command "frobnicate"\nusage:/],
    [['frobnicate', '--help'], /^unknown command "frobnicate"\nusage:/],
    [['approval', 'frob'], /^unknown approval subcommand "frob"/],
    [['approval', 'frob', '--help'], /^unknown approval subcommand "frob"/],
    [['approval'], /^approval needs a subcommand: request, list or cancel/],
    [['conversations'], /^conversations needs a subcommand: list, show, cancel or forget/],
    [['state', '--frob'], /^Unknown option '--frob'/],
    [['state', 'extra'], /^state: unexpected argument "extra"/],
    [['ensure', 'extra'], /^ensure: unexpected argument "extra"/],
    [['state', '--json'], /^state does not take --json/],
    [['approval', 'list', '--question', 'x'], /^approval list does not take --question/],
    [['approval', 'request'], /^approval request needs --question <text>/],
    [['approval', 'cancel'], /^approval cancel needs the request id/],
    [['conversations', 'show', ' '], /^conversations show: the workflow id is empty/],
    [
      ['codec-server', '--origin', 'https://ui.example/'],
      /--origin "https:\/\/ui.example\/" is not an origin.*did you mean https:\/\/ui.example\?/,
    ],
    [['codec-server', '--origin', 'ui.example'], /--origin "ui.example" is not an origin/],
  ])('%j', async (argv, message) => {
    const { code, out, err } = await run(argv, env);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(message);
  });
});

describe('the table', () => {
  it('declares each option name with one type across commands, and describes every option', () => {
    expect(() => parseOptionsOf(COMMANDS)).not.toThrow();
    for (const { path, spec } of commandsOf(COMMANDS)) {
      for (const [name, option] of Object.entries(spec.options))
        expect({ path, name, described: option.description.length > 0 }).toEqual({
          path,
          name,
          described: true,
        });
    }
  });

  it('refuses an option declared twice with different types', () => {
    const a = command({
      name: 'a',
      summary: 'a',
      options: { x: { type: 'string', description: 'x' } },
      run: async () => 0,
    });
    const b = command({
      name: 'b',
      summary: 'b',
      options: { x: { type: 'boolean', description: 'x' } },
      run: async () => 0,
    });
    expect(() => parseOptionsOf([a, b])).toThrow('the option --x is declared twice with different types');
  });

  it('takes a new command with one entry: listed, described and run with its options and defaults', async () => {
    const seen: unknown[] = [];
    const hello = command({
      name: 'hello',
      summary: 'says hello',
      positionals: [{ name: 'dir', what: 'the folder', description: 'where' }],
      options: { name: { type: 'string', value: '<name>', description: 'who', default: 'world' } },
      async run({ values, args }) {
        seen.push({ values, args });
        return 0;
      },
    });
    const table: readonly Entry[] = [...COMMANDS, hello];
    const out: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    try {
      expect(await main(['--help'], env, table)).toBe(0);
      expect(await main(['hello', '--help'], env, table)).toBe(0);
      expect(await main(['hello', 'my-bot'], env, table)).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect(out[0]).toMatch(/\n {2}hello +says hello\n/);
    expect(out[1]).toMatch(/^usage: amsflow hello <dir> \[--name <name>\]\n/);
    expect(seen).toEqual([{ values: { name: 'world' }, args: ['my-bot'] }]);
  });

  it("checks each option's value with the option's own check, wherever the value came from", () => {
    const checked: string[] = [];
    const even = (value: string) => (checked.push(value), Number(value) % 2 ? `${value} is odd` : undefined);
    const pick = command({
      name: 'pick',
      summary: 'picks',
      options: {
        n: { type: 'string', description: 'n', env: 'PICK_N', default: '2', check: even },
        m: { type: 'string', description: 'm', multiple: true, check: even },
      },
      run: async () => 0,
    });
    expect(resolve([pick], ['pick', '--n', '3'], {})).toMatchObject({ kind: 'print', code: 2 });
    expect((resolve([pick], ['pick', '--n', '3'], {}) as { text: string }).text).toMatch(/^3 is odd\n/);
    expect(resolve([pick], ['pick'], { PICK_N: '5' })).toMatchObject({ kind: 'print', code: 2 });
    expect(resolve([pick], ['pick', '--m', '4', '--m', '7'], {})).toMatchObject({ kind: 'print', code: 2 });
    checked.length = 0;
    expect(resolve([pick], ['pick', '--m', '4'], {})).toMatchObject({ kind: 'run' });
    expect(checked).toEqual(['2', '4']);
  });

  it('declares the agent key check, the ports and origins of codec-server once, on their options', () => {
    const options = commandsOf(COMMANDS).flatMap(({ spec }) => Object.entries(spec.options));
    for (const [name, option] of options.filter(([n]) => n === 'agent'))
      expect({ name, check: option.check }).toEqual({ name, check: agentKeyProblem });
    const codec = commandsOf(COMMANDS).find(({ path }) => path === 'codec-server')!.spec;
    expect(codec.options.port.check).toBe(portProblem);
    expect(codec.options.origin.check).toBe(originProblem);
    expect(codec.check).toBeUndefined();
  });

  it('says the defaults the code uses in the help of the environment', () => {
    const help = new Map(TEMPORAL_ENVIRONMENT);
    expect(help.get('TEMPORAL_ADDRESS')).toContain(DEFAULT_TEMPORAL_ADDRESS);
    expect(help.get('TEMPORAL_NAMESPACE')).toContain(`"${DEFAULT_NAMESPACE}"`);
    expect(help.get('AMSFLOW_TASK_QUEUE')).toContain(`"${DEFAULT_TASK_QUEUE}"`);
    expect(help.get('AMSFLOW_AGENT')).toContain(`"${agentOption.default}"`);
    expect(help.get('AMSFLOW_CONNECT_TIMEOUT')).toContain(formatDuration(DEFAULT_CONNECT_TIMEOUT_MS));
    expect(help.get('AMSFLOW_QUERY_TIMEOUT')).toContain(formatDuration(DEFAULT_QUERY_TIMEOUT_MS));
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
