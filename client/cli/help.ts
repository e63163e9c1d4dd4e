/** What `amsflow --help`, `amsflow <command> --help` and a usage error print, made from the table. */
import { DURATIONS, TEMPORAL_ENVIRONMENT } from './options';
import { isGroup, type CommandSpec, type Entry, type GroupSpec, type OptionSpec } from './spec';

/** The help option every command takes: parsed with the table's options, listed by `commandHelp`. */
export const HELP_OPTION = { name: 'help', short: 'h', description: 'this help' } as const;

/** `--name <value>` (`--name` for a boolean). */
function flagOf(name: string, option: OptionSpec): string {
  return option.type === 'boolean' ? `--${name}` : `--${name} ${option.value ?? '<value>'}`;
}

/** `--name <value>`, as the usage line shows it (required ones without brackets). */
function optionUsage(name: string, option: OptionSpec): string {
  const flag = flagOf(name, option);
  if (option.required) return flag;
  return option.multiple ? `[${flag}]...` : `[${flag}]`;
}

/** `amsflow approval request --question <text> [--agent <key>] ...`: arguments, then required, then the rest. */
export function usageLine(path: string, spec: CommandSpec): string {
  const options = Object.entries(spec.options);
  const parts = [
    `amsflow ${path}`,
    ...(spec.positionals ?? []).map((p) => (p.optional ? `[<${p.name}>]` : `<${p.name}>`)),
    ...options.filter(([, o]) => o.required).map(([n, o]) => optionUsage(n, o)),
    ...options.filter(([, o]) => !o.required).map(([n, o]) => optionUsage(n, o)),
  ];
  return parts.join(' ');
}

/** Every command of the table with its path (`approval request`), in table order. */
export function commandsOf(table: readonly Entry[]): { path: string; spec: CommandSpec }[] {
  return table.flatMap((entry) =>
    isGroup(entry)
      ? entry.commands.map((spec) => ({ path: `${entry.name} ${spec.name}`, spec }))
      : [{ path: entry.name, spec: entry }],
  );
}

/** The usage lines of every command: what a usage error prints after its problem. */
export function usageBlock(table: readonly Entry[]): string {
  const lines = commandsOf(table).map(({ path, spec }) => `  ${usageLine(path, spec)}`);
  return ['usage:', ...lines, DURATIONS].join('\n');
}

/** Rows of two columns, the second aligned. */
function columns(rows: [string, string][], indent = '  '): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}${right}`.trimEnd());
}

/** `amsflow --help`: the usage, the commands with their summaries, the environment. */
export function globalHelp(table: readonly Entry[]): string {
  return [
    usageBlock(table),
    '',
    'commands:',
    ...columns(commandsOf(table).map(({ path, spec }) => [path, spec.summary])),
    '',
    'environment:',
    ...columns(TEMPORAL_ENVIRONMENT),
    '',
    'amsflow <command> --help describes a command and its options.',
  ].join('\n');
}

/** The default an option shows in `--help`. */
function defaultText(option: OptionSpec): string {
  const value = Array.isArray(option.default) ? option.default.join(', ') : option.default;
  const fallback = value === undefined ? undefined : JSON.stringify(value);
  if (option.env) return ` (default: $${option.env}${fallback ? `, else ${fallback}` : ''})`;
  return fallback ? ` (default: ${fallback.replace(/^"(.*)"$/, '$1')})` : '';
}

/** `amsflow <command> --help`: its usage, what it does, its arguments and options. */
export function commandHelp(path: string, spec: CommandSpec): string {
  const args = (spec.positionals ?? []).map((p): [string, string] => [`<${p.name}>`, p.description]);
  const options = Object.entries(spec.options).map(([name, o]): [string, string] => [
    flagOf(name, o),
    `${o.description}${o.required ? ' (required)' : ''}${defaultText(o)}`,
  ]);
  options.push([`-${HELP_OPTION.short}, --${HELP_OPTION.name}`, HELP_OPTION.description]);
  return [
    `usage: ${usageLine(path, spec)}`,
    '',
    spec.summary,
    ...(spec.description ? ['', spec.description] : []),
    ...(args.length ? ['', 'arguments:', ...columns(args)] : []),
    '',
    'options:',
    ...columns(options),
  ].join('\n');
}

/** `amsflow approval --help`: the group's subcommands. */
export function groupHelp(group: GroupSpec): string {
  return [
    'usage:',
    ...group.commands.map((spec) => `  ${usageLine(`${group.name} ${spec.name}`, spec)}`),
    '',
    group.summary,
    ...(group.description ? ['', group.description] : []),
    '',
    'commands:',
    ...columns(group.commands.map((spec) => [`${group.name} ${spec.name}`, spec.summary])),
    '',
    `amsflow ${group.name} <command> --help describes a command and its options.`,
  ].join('\n');
}
