/**
 * The chaos command's flags: which exist, and what is wrong with a command line (pure). A flag
 * the command does not know is refused before anything starts, not ignored: a run of an hour on
 * the wrong settings is the costliest typo there is.
 */

/** Flags that take a number. */
export const NUMBER_FLAGS = [
  'messages',
  'kills',
  'restarts',
  'minutes',
  'seed',
  'agents',
  'step-timeout',
  'workers',
  'network-every',
  'partition',
  'postgres-every',
  'long-outage',
  'unread-grace-ms',
  'read-late-ms',
] as const;

/** Flags that stand alone. */
export const SWITCH_FLAGS = ['cluster'] as const;

/** What is wrong with `args` (the words after the command), or undefined when nothing is. */
export function flagProblem(args: readonly string[]): string | undefined {
  const numbers: readonly string[] = NUMBER_FLAGS;
  const switches: readonly string[] = SWITCH_FLAGS;
  for (let i = 0; i < args.length; i++) {
    const name = args[i].startsWith('--') ? args[i].slice(2) : undefined;
    if (name !== undefined && switches.includes(name)) continue;
    if (name === undefined || !numbers.includes(name)) {
      const known = [...numbers, ...switches].map((f) => `--${f}`).join(', ');
      return `unknown argument ${args[i]} (known: ${known}; AMSFLOW_CHAOS_KEEP=<dir> keeps the evidence)`;
    }
    const value = Number(args[i + 1]);
    if (args[i + 1] === undefined || !Number.isFinite(value) || value < 0) {
      return `--${name} needs a number, got ${args[i + 1] ?? 'nothing'}`;
    }
    i++;
  }
  return undefined;
}
