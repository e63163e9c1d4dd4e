/**
 * From a command line to the command to run, its help, or a usage problem; pure (nothing is
 * contacted). Options may come before or after the command's name, so the line is parsed once
 * with every option of the table, then checked against the command's own.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { commandHelp, globalHelp, groupHelp, HELP_OPTION, usageBlock } from './help';
import { isGroup, type CommandInput, type CommandSpec, type Entry, type OptionSpec } from './spec';

export type Resolution =
  /** Print `text` (to stdout when `code` is 0 or there is no problem, else stderr) and exit `code`. */
  | { kind: 'print'; text: string; code: number; toStderr: boolean }
  | { kind: 'run'; path: string; command: CommandSpec; input: CommandInput };

type ParseOptions = NonNullable<ParseArgsConfig['options']>;

/** Every option of the table, for `parseArgs`; throws when two commands declare one name two ways. */
export function parseOptionsOf(table: readonly Entry[]): ParseOptions {
  const all: ParseOptions = { [HELP_OPTION.name]: { type: 'boolean', short: HELP_OPTION.short } };
  const seen = new Map<string, OptionSpec>();
  const commands = table.flatMap((e) => (isGroup(e) ? e.commands : [e]));
  for (const [name, option] of commands.flatMap((c) => Object.entries(c.options))) {
    const before = seen.get(name);
    if (
      name === HELP_OPTION.name ||
      (before && (before.type !== option.type || !before.multiple !== !option.multiple))
    )
      throw new Error(`the option --${name} is declared twice with different types`);
    seen.set(name, option);
    all[name] = { type: option.type, multiple: option.multiple ?? false };
  }
  return all;
}

/** "a, b or c". */
function alternatives(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/**
 * What `argv` asks of `table`: help (exit 0), a usage problem (exit 2, with every usage line), or
 * the command to run with its options (defaults applied) and arguments, checked.
 */
export function resolve(table: readonly Entry[], argv: string[], env: NodeJS.ProcessEnv): Resolution {
  const problem = (text: string): Resolution => ({
    kind: 'print',
    text: `${text}\n${usageBlock(table)}`,
    code: 2,
    toStderr: true,
  });
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: parseOptionsOf(table) });
  } catch (err) {
    return problem((err as Error).message);
  }
  const { help, ...values } = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const [name, ...rest] = parsed.positionals;
  if (name === undefined)
    return {
      kind: 'print',
      text: help ? globalHelp(table) : usageBlock(table),
      code: help ? 0 : 2,
      toStderr: false,
    };
  const entry = table.find((e) => e.name === name);
  if (!entry) return problem(`unknown command "${name}"`);
  let command: CommandSpec;
  let args: string[];
  if (isGroup(entry)) {
    const [sub, ...subArgs] = rest;
    if (sub === undefined)
      return help
        ? { kind: 'print', text: groupHelp(entry), code: 0, toStderr: false }
        : problem(`${name} needs a subcommand: ${alternatives(entry.commands.map((c) => c.name))}`);
    const found = entry.commands.find((c) => c.name === sub);
    if (!found) return problem(`unknown ${name} subcommand "${sub}"`);
    [command, args] = [found, subArgs];
  } else [command, args] = [entry, rest];
  const path = isGroup(entry) ? `${name} ${command.name}` : name;
  if (help) return { kind: 'print', text: commandHelp(path, command), code: 0, toStderr: false };
  const why = lineProblem(path, command, values, args);
  if (why) return problem(why);
  const input: CommandInput = { values: withDefaults(command, values, env), args, env };
  const invalid = valueProblem(command, input.values) ?? command.check?.(input);
  return invalid ? problem(invalid) : { kind: 'run', path, command, input };
}

/** The first problem an option's own `check` finds in its value (each value of a list), or undefined. */
function valueProblem(command: CommandSpec, values: CommandInput['values']): string | undefined {
  for (const [name, option] of Object.entries(command.options)) {
    const value = values[name];
    if (!option.check || value === undefined || typeof value === 'boolean') continue;
    const list: readonly string[] = typeof value === 'string' ? [value] : value;
    for (const one of list) {
      const problem = option.check(one);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Why the options and arguments do not fit the command, or undefined. */
function lineProblem(
  path: string,
  command: CommandSpec,
  values: Record<string, unknown>,
  args: string[],
): string | undefined {
  const extra = Object.keys(values).find((o) => !(o in command.options));
  if (extra) return `${path} does not take --${extra}`;
  const positionals = command.positionals ?? [];
  const variadic = positionals.some((p) => p.variadic);
  const missing = positionals[args.length];
  if (missing && !missing.optional) return `${path} needs ${missing.what}`;
  if (!variadic && args.length > positionals.length)
    return `${path}: unexpected argument "${args[positionals.length]}"`;
  const required = Object.entries(command.options).find(([n, o]) => o.required && values[n] === undefined);
  if (required) return `${path} needs --${required[0]} ${required[1].value ?? ''}`.trimEnd();
  return undefined;
}

/** The values with each absent option's variable or default. */
function withDefaults(
  command: CommandSpec,
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): CommandInput['values'] {
  const out: Record<string, unknown> = { ...values };
  for (const [name, option] of Object.entries(command.options)) {
    if (out[name] !== undefined) continue;
    const fromEnv = option.env === undefined ? undefined : env[option.env];
    const value = fromEnv ?? option.default;
    if (value !== undefined) out[name] = Array.isArray(value) ? [...(value as string[])] : value;
  }
  return out as CommandInput['values'];
}
