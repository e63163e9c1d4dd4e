/**
 * What a command of the `amsflow` command line declares: its name, a one-line summary, what
 * `--help` says about it, its arguments, its options (each declared once, with its description and
 * default), an optional check that needs no server, and its run function. The table of commands
 * is `commands.ts`; parsing, help and connecting are generic over it.
 */
import type { Client } from '@temporalio/client';

/** One `--option` of a command. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** What `--help` says it does. */
  readonly description: string;
  /** How its value reads in the usage line (`<key>`, `10m`); strings only. */
  readonly value?: string;
  /** Its value when it is not given (applied before the command's check and run). */
  readonly default?: string | readonly string[];
  /** A variable read when the option is not given, before `default`. */
  readonly env?: string;
  /** May be given several times; the value is then a list. */
  readonly multiple?: boolean;
  /** The command cannot run without it (its usage line shows it without brackets). */
  readonly required?: boolean;
  /**
   * Why a value is not allowed (exit 2, nothing contacted), or undefined: run on the value given,
   * from the variable or the default, each one of a `multiple` option, before the command's check.
   */
  readonly check?: (value: string) => string | undefined;
}

/** One positional argument of a command. */
export interface PositionalSpec {
  /** How it reads in the usage line, without the angle brackets: `workflow id`. */
  readonly name: string;
  /** How an error names it: `the workflow id`. */
  readonly what: string;
  readonly description: string;
  /** Takes every remaining argument (joined with spaces by the command). */
  readonly variadic?: boolean;
  /** May be left out (the last positional only). */
  readonly optional?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type ValueOf<O extends OptionSpec> = O['type'] extends 'boolean'
  ? boolean
  : O['multiple'] extends true
    ? string[]
    : string;

/** The parsed options of a command, defaults applied; absent ones are undefined. */
export type Values<O extends OptionSpecs> = { [K in keyof O]?: ValueOf<O[K]> };

/** What a command's check sees: the parsed command line, nothing contacted. */
export interface CommandInput<O extends OptionSpecs = OptionSpecs> {
  readonly values: Values<O>;
  /** The positional arguments after the command's name. */
  readonly args: string[];
  readonly env: NodeJS.ProcessEnv;
}

/** What a command's run gets: its input and, on demand, a Temporal client. */
export interface CommandContext<O extends OptionSpecs = OptionSpecs> extends CommandInput<O> {
  /**
   * A client of the Temporal server at `TEMPORAL_ADDRESS`, connected on the first call (every
   * command connects through this, so every command fails the same way when it cannot). Closed
   * when the command ends.
   */
  readonly temporal: () => Promise<Client>;
}

/** One command (`state`) or one subcommand of a group (`approval request`). */
export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  /** One line for the list of commands. */
  readonly summary: string;
  /** What `<command> --help` says about it beyond the summary (lines, no trailing newline). */
  readonly description?: string;
  readonly positionals?: readonly PositionalSpec[];
  readonly options: O;
  /**
   * Why the command line cannot run (exit 2, nothing contacted), or undefined: what no single
   * option's `check` can tell (arguments, options together).
   */
  check?(input: CommandInput<O>): string | undefined;
  /** Does what was asked; resolves to the exit code. Throws {@link CommandFailure} for a failure to report. */
  run(ctx: CommandContext<O>): Promise<number>;
}

/** A command with subcommands (`approval request|list|cancel`). */
export interface GroupSpec {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly commands: readonly CommandSpec[];
}

export type Entry = CommandSpec | GroupSpec;

export function isGroup(entry: Entry): entry is GroupSpec {
  return 'commands' in entry;
}

/** Declares a command, its option types inferred from `options` (declare them `as const`). */
export function command<const O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec {
  return spec;
}

/** A command line that cannot run: printed with the usage, exit 2, nothing contacted. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What was asked did not happen: the message is printed (no usage), exit `exitCode` (default 1). */
export class CommandFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CommandFailure';
  }
}
