/** A bot's own activities module (`AMSFLOW_ACTIVITIES`), loaded for the workflow worker. */

/** The functions a bot's activities module exports. */
export async function loadBotActivities(
  path: string,
): Promise<Record<string, (...args: unknown[]) => unknown>> {
  const loaded = (await import(path)) as Record<string, unknown>;
  const functions = Object.entries(loaded).filter(
    (entry): entry is [string, (...args: unknown[]) => unknown] => typeof entry[1] === 'function',
  );
  if (functions.length === 0) throw new Error(`AMSFLOW_ACTIVITIES: ${path} exports no functions`);
  return Object.fromEntries(functions);
}
