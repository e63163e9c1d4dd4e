/**
 * How the worker process (`npm start`, `npm run worker`, the container's `node dist/worker/main.js`)
 * answers SIGINT and SIGTERM: the first starts the clean drain; one that comes later, while the
 * drain runs, is a person insisting (a second Ctrl-C) and stops the process at once. Signals that
 * arrive together are one: a Ctrl-C under `npm start` reaches the worker twice, from the terminal
 * and forwarded by npm. The listeners stay for the whole run: with none, a signal would kill the
 * process (the Temporal runtime drops its own after the first).
 */

/**
 * Signals closer than this to the first are the same request. npm forwards its copy of a Ctrl-C
 * from its own event loop, which on a loaded machine ran more than a second late (a CI run saw
 * the copy taken as insistence, exit 1): 3 s absorbs that and is still short for a person
 * waiting on a drain that hangs.
 */
export const SAME_SIGNAL_MS = 3_000;

/** What a signal means, given the time of the first one (undefined: none yet). */
export function signalMeaning(now: number, first: number | undefined): 'drain' | 'same' | 'force' {
  if (first === undefined) return 'drain';
  return now - first < SAME_SIGNAL_MS ? 'same' : 'force';
}

/** Listens for SIGINT and SIGTERM until the process ends; calls `drain` once, `force` on insistence. */
export function onStopSignals(drain: () => void, force: () => void): void {
  let first: number | undefined;
  const listener = () => {
    const meaning = signalMeaning(Date.now(), first);
    if (meaning === 'drain') {
      first = Date.now();
      drain();
    } else if (meaning === 'force') force();
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
}
